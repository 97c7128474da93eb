import Foundation
import ProcedureKit

/// Turns a workflow into procedures, the library used as documented: the workflow is a root
/// `GroupProcedure`; groups are nested `GroupProcedure`s whose input and output are bound with
/// `bind(to:)` and `bind(from:)`; wires are `injectResult(from:)`; conditions are `Condition`s
/// (mutual exclusion is `MutuallyExclusive`); retries are `RetryProcedure`s; timeouts are
/// `TimeoutObserver`s; a branch is a group that adds the chosen case's procedures once the
/// value it reads has arrived.
final class WorkflowBuilder: @unchecked Sendable {
    // @unchecked Sendable: `nodes`, `environmentInputs`, `readinessClocks` and `conditions` are
    // `Locked`; `services` is set once, in init; the rest is constant.

    struct Settings: Sendable {
        /// The environment every command and condition starts from (procflow's own, the
        /// variables, the workflow's `env`, and `PROCFLOW`).
        var environment: [String: String]
        var directory: String
        var gracePeriod: TimeInterval
        var captureLimit: Int
        /// How many steps run at once in the whole run.
        var maxConcurrent: Int
        /// The category in which steps share the `maxConcurrent` places: one per run.
        var concurrencyCategory: String
        /// Where the run's commands register their process groups.
        var processGroups: ProcessGroups
        /// With `--fail-fast`, or `always` steps that must run after an interrupt: set when the
        /// run stops early.
        var stop: RunStop? = nil
        /// How many steps must be able to be built as the run reaches them for the run to do
        /// so (``DeferredSteps``).
        var deferringFrom = DeferredSteps.worthwhileCount
        /// The executors of the run, and the one a shell step that names none takes.
        var executors: RunExecutors
        var defaultExecutor: String
        /// How many jobs are submitted and not yet over at once, in the category named
        /// `jobsCategory`.
        var maxJobs: Int
        var jobsCategory: String
        /// The run's secrets: output lines are not cut inside one, and an HTTP error's excerpt
        /// of a body is masked before it is cut.
        var secrets = SecretValues.none
        /// The jobserver the run's shell steps on this machine share; `nil` with
        /// `--no-jobserver`.
        var jobserver: RunJobserver? = nil
        /// For incremental runs: the cache, and the steps it knows.
        var incremental: Incremental? = nil
    }

    /// What the builder needs for incremental steps.
    struct Incremental: Sendable {
        let context: IncrementalStepProcedure.Context
        /// The incremental steps of the file, by id: moved into the builder's own table as it
        /// is made (empty in its settings from then on).
        let steps: IncrementalSteps
        /// What the incremental steps share: for the instances of `forEach` steps, made as
        /// the run goes.
        let stepContext: IncrementalStep.Context
    }

    private let workflow: Workflow
    private let settings: Settings
    /// The incremental steps of ``Settings/incremental``, each until its procedure is made,
    /// which keeps it as long as it runs: then `nil`.
    private let unbuiltSteps: Locked<DenseTable<String, IncrementalStep?>>
    private let events: StepEvents
    /// Every step, with where it stands: the file's, and the instances made as the run goes.
    private let steps: Locked<StepTable>
    /// The procedure standing for each step built so far.
    private let nodes = Locked([String: any OutputProcedure<JSONValue>]())
    /// Incremental steps found up to date before the run that other steps take data from, by
    /// id: each stands in the graph as a ``SettledStepProcedure``.
    private let settled = Locked([String: SettledStep]())
    /// Incremental steps found up to date before the run that nothing takes data from: they
    /// get no procedure (what waits for them waits for nothing), and the runner reports them.
    private let leftOut = Locked(Set<String>())
    /// The environment values wired into each shell step, shared by its retry's attempts.
    private let environmentInputs = Locked([String: ShellProcedure.EnvironmentInputs]())
    /// The clocks of the steps with a mutex, that time their mutex wait.
    private let readinessClocks = Locked([String: ReadinessClock]())
    /// The `when` of each step that has one, to say which part of it was false.
    private let conditions = Locked([String: WorkflowCondition]())
    /// The run's services, and the steps that depend on them.
    private(set) var services: ServiceRegistry!
    /// `settings.environment`, which the run's commands share.
    private let sharedEnvironment: SharedEnvironment
    /// `settings.directory` made absolute: where a command without a `cwd` starts.
    private let commandDirectory: String
    /// The steps built once what they wait for has started; set by ``buildRoot()``, before
    /// anything runs. It knows the steps let go of once nothing needed them, and whether each
    /// made its work (an incremental step may not have): what ``node(_:)`` no longer answers
    /// for.
    private var deferral: DeferredSteps?

    /// The builder of `workflow`'s procedures; `nestedSteps` are its steps, in file order.
    init(
        workflow: Workflow, nestedSteps: [NestedStep], settings: Settings, events: StepEvents
    ) {
        self.workflow = workflow
        var settings = settings
        // Values of their own (the keys and the hash table shared): taking one changes only
        // them.
        unbuiltSteps = Locked((settings.incremental?.steps ?? [:]).mapValues { $0 })
        settings.incremental = settings.incremental.map {
            Incremental(context: $0.context, steps: [:], stepContext: $0.stepContext)
        }
        self.settings = settings
        self.events = events
        sharedEnvironment = SharedEnvironment(settings.environment)
        commandDirectory = resolve(".", in: settings.directory)
        steps = Locked(StepTable(nestedSteps))
        services = ServiceRegistry(steps: nestedSteps) { [weak self] id in
            self?.node(id) as? Procedure
        }
    }

    /// Makes the steps found up to date before the run give their outcome without asking the
    /// cache again; call before ``buildRoot()``. Returns those it builds nothing for: those no
    /// step takes data from, which the caller reports as up to date.
    ///
    /// A settled step waits only for settled steps (``CachePreview``), so it has ended before
    /// the run starts: a step that depends on it has nothing to wait for, and it cannot be
    /// cancelled or skipped.
    func settle(_ steps: [String: SettledStep]) -> Set<String> {
        guard !steps.isEmpty else { return [] }
        let takenFrom = self.steps.withLock { table in
            var taken: Set<String> = []
            for nested in table.all {
                if nested.step.wireCount > 0 {
                    for (wire, _) in nested.step.wires { taken.insert(wire.from.id) }
                }
                if let child = nested.step.outputChild { taken.insert(child.id) }
            }
            return taken
        }
        // One pass, one lookup a step: hundreds of steps are settled at once.
        var left = Set<String>(minimumCapacity: steps.count)
        var kept: [String: SettledStep] = [:]
        for (id, step) in steps {
            if !takenFrom.isEmpty, takenFrom.contains(id) {
                kept[id] = step
            } else {
                left.insert(id)
            }
        }
        settled.withLock { $0 = kept }
        leftOut.withLock { $0 = left }
        return left
    }

    /// The root group, holding every top-level step.
    func buildRoot() -> StepGroupProcedure {
        // `select` looks no further than the count for a workflow too small, as most are.
        if settings.stop == nil,
            let selection = DeferredSteps.select(
                workflow, nestedSteps: steps.withLock(\.all), leftOut: leftOut.withLock { $0 },
                settled: settled.withLock { $0 }, atLeast: settings.deferringFrom)
        {
            deferral = DeferredSteps(
                selection, build: { [weak self] ids in self?.buildDeferred(ids) },
                forget: { [weak self] id in self?.forget(id) ?? nil })
        }
        let hold = deferral?.hold(for: workflow.steps)
        let root = StepGroupProcedure(
            children: build(workflow.steps) + (hold.map { [$0] } ?? []),
            tolerated: tolerated(workflow.steps), releasesEndedChildren: hold != nil)
        root.name = workflow.name
        if let hold { deferral?.attach(root, to: hold) }
        return root
    }

    /// Builds and wires the deferred steps `ids`, whose prerequisites have all started, and
    /// adds each to its group.
    private func buildDeferred(_ ids: [String]) {
        guard let deferral else { return }
        for id in ids {
            var built: [Step] = []
            let node = step(id).flatMap { makeNode($0, built: &built) }
            for step in built { wire(step) }
            deferral.add(node, for: id)
        }
    }

    /// Lets go of the deferred step `id`, which has ended, as have the steps that wait for it;
    /// tells whether its procedure made its work, `nil` if none was held.
    private func forget(_ id: String) -> Bool? {
        guard let node = nodes.withLock({ $0.removeValue(forKey: id) }) else { return nil }
        environmentInputs.withLock { _ = $0.removeValue(forKey: id) }
        readinessClocks.withLock { _ = $0.removeValue(forKey: id) }
        conditions.withLock { _ = $0.removeValue(forKey: id) }
        return Self.madeWork(node)
    }

    /// The procedures built so far for steps that do work themselves (not groups and branches)
    /// and are not `always`: what `--fail-fast` cancels.
    func cancellableLeaves() -> [any OutputProcedure<JSONValue>] {
        let built = nodes.withLock { $0 }
        return built.compactMap { id, node in
            guard let step = step(id), !step.always, step.kind.isLeaf else { return nil }
            return node
        }
    }

    /// The step `id`: one of the file's, or an instance made as the run goes.
    func step(_ id: String) -> Step? {
        steps.withLock { $0[id]?.step }
    }

    /// The output format of each of the steps `ids` (`.none` for an id it does not know),
    /// under one lock.
    func outputFormats(of ids: [String]) -> [OutputFormat] {
        steps.withLock { table in ids.map { table[$0]?.step.outputFormat ?? .none } }
    }

    /// The procedure that stands for the step `id`, once built, until it is let go of (a
    /// deferred step, once it and what waits for it have ended).
    func node(_ id: String) -> (any OutputProcedure<JSONValue>)? {
        nodes.withLock { $0[id] }
    }

    /// Whether a procedure was built for the step `id`.
    func built(_ id: String) -> Bool {
        node(id) != nil || deferral?.forgotten(id) != nil
    }

    /// Whether the step `id`'s procedure made the procedure that does its work: `nil` if none
    /// was built; not for an incremental step the cache found up to date as the run went.
    func madeWork(_ id: String) -> Bool? {
        if let node = node(id) { return Self.madeWork(node) }
        return deferral?.forgotten(id)
    }

    /// Whether `node` made the procedure that does its step's work: any but an incremental
    /// step found up to date as the run went.
    private static func madeWork(_ node: any OutputProcedure<JSONValue>) -> Bool {
        (node as? IncrementalStepProcedure)?.madeWork ?? true
    }

    /// Builds `list` and everything nested in it (but the cases of branches, built when the
    /// branch runs), then wires them: references can point anywhere among steps built so far.
    private func build(_ list: [Step]) -> [Operation] {
        var built: [Step] = []
        let operations = makeNodes(list, built: &built)
        for step in built { wire(step) }
        return operations
    }

    /// The procedures of `steps`, in order, but for those left out and those built as the run
    /// reaches them.
    private func makeNodes(_ steps: [Step], built: inout [Step]) -> [Operation] {
        steps.compactMap { step -> Operation? in
            if let deferral, deferral.defers(step.id) { return nil }
            return makeNode(step, built: &built)
        }
    }

    private func tolerated(_ list: [Step]) -> Set<String> {
        Set(list.filter(\.continueOnError).map(\.id))
    }

    // MARK: - Procedures

    /// The procedure of `step`, built with everything nested in it; `nil` for a step left out
    /// (``settle(_:)``).
    private func makeNode(_ step: Step, built: inout [Step]) -> (any OutputProcedure<JSONValue>)? {
        let node: any OutputProcedure<JSONValue>
        if let forEach = step.forEach {
            node = makeForEach(step, forEach)
            return register(node, for: step, built: &built)
        }
        switch step.kind {
        case .group(let group):
            let children = makeNodes(group.steps, built: &built)
            let hold = deferral?.hold(for: group.steps)
            let procedure = StepGroupProcedure(
                children: children + (hold.map { [$0] } ?? []), tolerated: tolerated(group.steps),
                releasesEndedChildren: hold != nil)
            if let hold { deferral?.attach(procedure, to: hold) }
            // The run's limit applies to every step; a group's own is a further limit within it.
            procedure.maxConcurrentOperationCount = group.maxConcurrency ?? 0
            if let inputTo = group.inputTo, let child = self.node(inputTo.id) {
                bind(procedure, to: child)
            }
            if let outputFrom = group.outputFrom, let child = self.node(outputFrom.id) {
                procedure.bind(from: child)
            }
            if let timeout = step.timeout { procedure.addObserver(TimeoutObserver(by: timeout)) }
            node = procedure
        case .branch(let branch):
            let procedure = BranchProcedure(
                branch: branch,
                tolerated: tolerated(branch.cases.flatMap(\.steps) + branch.otherwise),
                onChoice: { [events] index in events.chose(step.id, caseIndex: index) },
                makeCase: { [self] steps in build(steps) })
            if let timeout = step.timeout { procedure.addObserver(TimeoutObserver(by: timeout)) }
            node = procedure
        case .shell, .http, .file:
            if leftOut.withLock({ $0.contains(step.id) }) { return nil }
            if let settled = settled.withLock({ $0[step.id] }) {
                // Wired like any step (its environment inputs arrive, unused), so that it
                // waits for what it takes data from.
                if case .shell = step.kind {
                    environmentInputs.withLock { $0[step.id] = ShellProcedure.EnvironmentInputs() }
                }
                node = SettledStepProcedure(settled)
                break
            }
            node = makeLeaf(step)
        }
        return register(node, for: step, built: &built)
    }

    private func register(
        _ node: any OutputProcedure<JSONValue>, for step: Step, built: inout [Step]
    ) -> any OutputProcedure<JSONValue> {
        node.name = step.id
        // Attached before the wires' observers, so that the step's end is reported before the
        // skips its end sets off. A retry's attempts and an incremental step announce their
        // starts themselves (an incremental step only if it runs).
        let readiness = step.mutex.isEmpty ? nil : ReadinessClock()
        // Class casts of the procedure, not of the existential; and only a step with `retry`
        // can be a retry: a cast to a protocol looks the type up in every conformance of the
        // program, the first time, for a tenth of a millisecond.
        let procedure: Procedure = node
        let announcesItself =
            procedure is IncrementalStepProcedure || procedure is SettledStepProcedure
            || (step.retry != nil && node is any RetryAttempts)
        node.addObserver(
            StepObserver(
                id: step.id, events: events, announcesStart: !announcesItself,
                readiness: readiness,
                deferral: deferral.flatMap { $0.follows(step.id) ? $0 : nil }))
        if let readiness { readinessClocks.withLock { $0[step.id] = readiness } }
        nodes.withLock { $0[step.id] = node }
        built.append(step)
        return node
    }

    /// A `forEach` step: its instances are made, built and wired as its batch runs.
    private func makeForEach(_ step: Step, _ forEach: ForEach) -> any OutputProcedure<JSONValue> {
        let path = steps.withLock { $0[step.id]?.path ?? [] } + [step.id]
        let procedure = ForEachProcedure(
            id: step.id, items: forEach.staticItems, only: forEach.only,
            tolerated: step.continueOnError,
            naming: { forEach.instanceNames(of: step.id, items: $0) },
            makeInstance: { [self] index, item, name in
                makeInstance(of: step, at: index, item: item, path: path, name: name)
            })
        return procedure
    }

    /// The instance of `template` for item number `index`: built like any step, in a group
    /// that gives its output; or, if the item lacks a field the step names, a procedure that
    /// fails saying so.
    private func makeInstance(
        of template: Step, at index: Int, item: JSONValue, path: [String], name: String
    ) -> ForEachProcedure.Instance {
        let instance: Step
        do {
            instance = try template.instance(at: index, item: item)
        } catch {
            let id = ForEach.instanceID(of: template.id, at: index)
            // Known to the run as the instance, so that the step's continueOnError makes its
            // failure a warning, as it does any instance's.
            var standIn = template
            standIn.id = id
            standIn.forEach = nil
            standIn.dependsOn = []
            steps.withLock { steps in
                let cases = steps[template.id]?.cases ?? []
                steps[id] = NestedStep(step: standIn, path: path, cases: cases)
            }
            events.added([(id, path)], names: id == name ? [:] : [id: name])
            let failing = ResultProcedure<JSONValue> { throw StepError(.input, error.description) }
            failing.name = id
            failing.addObserver(
                StepObserver(id: id, events: events, announcesStart: true, readiness: nil))
            let group = StepGroupProcedure(children: [failing], tolerated: [])
            group.bind(from: failing)
            return group
        }
        var added: [(id: String, path: [String])] = []
        var names: [String: String] = [:]
        steps.withLock { steps in
            Workflow.walk([instance], path: path, cases: []) { inner in
                steps[inner.step.id] = inner
                added.append((inner.step.id, inner.path))
                // `cc[3].link` is `cc[src/lapi.c].link`.
                if name != instance.id {
                    names[inner.step.id] = name + inner.step.id.dropFirst(instance.id.count)
                }
            }
        }
        events.added(added, names: names)
        let children = build([instance])
        let group = StepGroupProcedure(
            children: children, tolerated: instance.continueOnError ? [instance.id] : [])
        if let node = node(instance.id) { group.bind(from: node) }
        return group
    }

    /// The procedure of a step that does work itself.
    private func makeLeaf(_ step: Step) -> any OutputProcedure<JSONValue> {
        if step.service != nil, let name = step.executor(default: settings.defaultExecutor),
            !settings.executors.executor(name).spawnsLocally
        {
            return ResultProcedure<JSONValue> {
                throw StepError(
                    .spawnFailed,
                    "a service runs on this machine, not on the \(name) executor: give it \"executor\": \"local\""
                )
            }
        }
        switch step.kind {
        case .shell(let shell):
            let inputs = ShellProcedure.EnvironmentInputs()
            environmentInputs.withLock { $0[step.id] = inputs }
            // Made ahead, as soon as a step that may ask for it is built, though an
            // incremental step's procedure is made only once it must run.
            if let jobserver = jobserver(for: step, shell) { jobserver.prepare() }
            // The closures hold the step, not its shell: a copy of that in each made every step
            // of a large run hold about 110 bytes more until the run's end.
            return incremental(step, environmentInputs: inputs) { [self] in
                attempts(of: step) { [self] in makeShell(step, inputs: inputs) }
            }
        case .http(let http):
            return incremental(step) { [self] in
                attempts(of: step) { [self] in makeHTTP(http, timeout: step.timeout) }
            }
        case .file(let operation):
            return incremental(step) { [self] in
                attempts(of: step) { [self] in makeFile(operation) }
            }
        case .group, .branch:
            preconditionFailure("\(step.id) holds other steps")
        }
    }

    /// The procedure of `step` that `work` makes, wrapped to be made and run only when the
    /// cache says it must, if the step is incremental and the run uses the cache.
    private func incremental(
        _ step: Step, environmentInputs: ShellProcedure.EnvironmentInputs? = nil,
        _ work: @escaping @Sendable () -> any StepWork
    ) -> any OutputProcedure<JSONValue> {
        guard let incremental = settings.incremental,
            let spec = takeUnbuilt(step.id)
                // A step built again (none is) is made again, the same.
                ?? IncrementalStep(step, context: incremental.stepContext)
        else { return work() }
        // A step with `retry` is a retry, whose attempts announce their starts: told here,
        // not by a cast to a protocol once the procedure is made (`attempts(of:_:)`).
        return IncrementalStepProcedure(
            spec, environmentInputs: environmentInputs, context: incremental.context,
            announcesAttempts: step.retry != nil, makeWork: work)
    }

    /// The boxes of the incremental steps whose procedures are not made yet (for tests).
    var unbuiltIncrementalSteps: [AnyObject] {
        unbuiltSteps.withLock { $0.values.compactMap { $0?.box } }
    }

    /// The incremental step `id`, let go of here, if its procedure was not made yet.
    private func takeUnbuilt(_ id: String) -> IncrementalStep? {
        unbuiltSteps.withLock { table in
            guard let place = table.place(of: id) else { return nil }
            defer { table[place: place] = nil }
            return table[place: place]
        }
    }

    /// The step's procedure: one attempt, or a retry making attempts with `make`. Each attempt
    /// gets the step's timeout.
    private func attempts<P: Procedure & InputProcedure<JSONValue> & OutputProcedure<JSONValue>>(
        of step: Step, _ make: @escaping @Sendable () -> P
    ) -> any StepWork {
        let timeout = step.timeout
        let places = places(of: step)
        let makeAttempt: @Sendable () -> P = {
            let attempt = make()
            // Each attempt takes its places: a retry's wait holds none.
            for place in places {
                attempt.addCondition(
                    ConcurrencyLimit(
                        category: place.category, limit: place.limit, weight: place.weight))
            }
            if let timeout { attempt.addObserver(TimeoutObserver(by: timeout)) }
            return attempt
        }
        guard let retry = step.retry else { return makeAttempt() }
        let wait: RetryProcedure<P>.WaitStrategy
        switch retry.backoff {
        case .constant: wait = .constant(retry.delay)
        case .linear: wait = .incrementing(initial: retry.delay, increment: retry.delay)
        case .exponential:
            wait = .exponential(
                initial: retry.delay, maximum: retry.maxDelay ?? 300, jitter: retry.jitter)
        }
        let (id, events) = (step.id, events)
        let procedure = RetryProcedure<P>(maxAttempts: retry.attempts, wait: wait) { number in
            let attempt = makeAttempt()
            attempt.addObserver(AttemptObserver(id: id, attempt: number, events: events))
            return attempt
        }
        procedure.addObserver(RetryObserver(id: step.id, events: events))
        return procedure
    }

    /// The places each attempt of `step` takes while it runs: one of the run's (or as many
    /// as the cores it needs) and the memory it needs, on this machine; one of the jobs in
    /// flight, for a command run as a job elsewhere.
    private func places(of step: Step) -> [(category: String, limit: Int, weight: Int)] {
        if let name = step.executor(default: settings.defaultExecutor),
            !settings.executors.executor(name).spawnsLocally
        {
            return [(settings.jobsCategory, settings.maxJobs, 1)]
        }
        guard case .shell = step.kind else {
            return [(settings.concurrencyCategory, settings.maxConcurrent, 1)]
        }
        let resources = step.placement.resources
        var places = [(settings.concurrencyCategory, settings.maxConcurrent, resources.cpus ?? 1)]
        if let memory = resources.memory {
            places.append(
                (settings.concurrencyCategory + ".memory", Self.machineMemory, memory))
        }
        return places
    }

    /// This machine's memory, in MiB: what steps' `memory` shares out.
    static let machineMemory: Int = {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let size = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, size > 0 else { return Int.max / 2 }
        return max(1, pages * size / (1 << 20))
    }()

    /// What `step`'s command asks of an executor that runs it as a job.
    private func jobRequest(for step: Step) -> JobRequest {
        JobRequest(
            name: step.id, resources: step.placement.resources, slurm: step.placement.slurm,
            timeout: step.timeout, arrayKey: ForEach.templateID(ofInstance: step.id))
    }

    private func makeShell(_ step: Step, inputs: ShellProcedure.EnvironmentInputs)
        -> ShellProcedure
    {
        guard case .shell(let shell) = step.kind else {
            preconditionFailure("\(step.id) runs no command")
        }
        // In order: a name given twice takes its last value.
        var own: [String: String] = [:]
        for (name, value) in shell.environment { own[name] = value }
        own["PROCFLOW_STEP"] = step.id
        let command: ShellProcedure.Command
        switch shell.command {
        case .script(let script): command = .script(script, interpreter: shell.interpreter)
        case .argv(let argv): command = .argv(argv)
        }
        let id = step.id
        let events = events
        var options = ShellProcedure.Options(
            workingDirectory: shell.cwd.map { resolve($0, in: settings.directory) }
                ?? commandDirectory,
            environment: [:], output: shell.output, captureLimit: settings.captureLimit,
            gracePeriod: settings.gracePeriod, processGroups: settings.processGroups,
            onOutput: { stream, lines in events.output(id, stream, lines) })
        options.sharedEnvironment = sharedEnvironment
        options.stepEnvironment = own
        options.executor = settings.executors.executor(
            step.executor(default: settings.defaultExecutor) ?? "local")
        // What a job is asked for matters only to an executor that submits jobs.
        if !options.executor.spawnsLocally { options.job = jobRequest(for: step) }
        options.secrets = settings.secrets
        if let service = shell.service, let services {
            options.service = ServiceOptions(
                service: service, onReady: { services.ready(id, $0) },
                onExit: { services.exited(id, $0) })
        }
        if let jobserver = jobserver(for: shell, runOn: options.executor) {
            options.jobserver = JobserverUse(
                jobserver: jobserver, tokens: step.placement.resources.cpus ?? 1,
                handsOver: shell.jobserver)
        }
        return ShellProcedure(command, options: options, environmentInputs: inputs)
    }

    /// The jobserver the shell step's commands take tokens from; `nil` for none. Commands run
    /// elsewhere (Slurm) neither take tokens nor reach the FIFO; a service, which runs on past
    /// its step's end, would hold its token for the whole run.
    private func jobserver(for step: Step, _ shell: Shell) -> RunJobserver? {
        jobserver(
            for: shell,
            runOn: settings.executors.executor(
                step.executor(default: settings.defaultExecutor) ?? "local"))
    }

    /// The jobserver of a shell step whose commands `executor` runs (looked up once, by the
    /// caller that has it).
    private func jobserver(for shell: Shell, runOn executor: any CommandExecutor)
        -> RunJobserver?
    {
        guard let jobserver = settings.jobserver, shell.service == nil, executor.spawnsLocally
        else { return nil }
        return jobserver
    }

    private func makeHTTP(_ http: HTTP, timeout: TimeInterval?) -> HTTPProcedure {
        HTTPProcedure(http, timeout: timeout ?? 60, secrets: settings.secrets)
    }

    private func makeFile(_ operation: FileOperation) -> FileProcedure {
        let directory = settings.directory
        func path(_ path: String) -> String { resolve(path, in: directory) }
        switch operation {
        case .read(let file, let format):
            return FileProcedure(.read(path: path(file), format: format))
        case .write(let file, let content):
            return FileProcedure(.write(path: path(file), content: content))
        case .copy(let source, let destination):
            return FileProcedure(.copy(source: path(source), destination: path(destination)))
        case .render(let template, let file):
            let resolved: FileOperation.Template
            switch template {
            case .file(let name): resolved = .file(path(name))
            case .text(let text): resolved = .text(text)
            }
            let variables = Dictionary(workflow.variables.map { ($0.name, $0.value) }) { first, _ in
                first
            }
            return FileProcedure(
                .render(template: resolved, path: file.map(path), variables: variables))
        case .select(let pointer): return FileProcedure(.select(pointer: pointer))
        case .replace(let find, let replacement):
            return FileProcedure(.replace(find: find, replacement: replacement))
        case .concat(let files, let file):
            return FileProcedure(.concat(paths: files.map(path), path: file.map(path)))
        }
    }

    // MARK: - Wiring

    private func wire(_ step: Step) {
        guard let node = node(step.id) else { return }
        for reference in step.dependsOn {
            if let dependency = self.node(reference.id) { node.addDependency(dependency) }
        }
        if let forEach = step.forEach { return wireForEach(step, forEach, node: node) }
        if let input = step.input, let source = self.node(input.from.id) {
            inject(into: node, from: source, wire: input)
        }
        if case .branch(let branch) = step.kind, let source = self.node(branch.on.from.id) {
            inject(into: node, from: source, wire: branch.on)
        }
        if case .shell(let shell) = step.kind,
            let inputs = environmentInputs.withLock({ $0[step.id] })
        {
            for (name, wire) in shell.inputs {
                guard let source = self.node(wire.from.id) else { continue }
                injectEnvironment(into: node, from: source, wire: wire, name: name, inputs: inputs)
            }
        }
        if !step.always {
            let dependencies = dependenciesToCheck(step)
            if !dependencies.isEmpty { node.addCondition(DependencyOutcomeCondition(dependencies)) }
        }
        let readiness = readinessClocks.withLock { $0[step.id] }
        if let when = step.when {
            var sources: [String: any OutputProcedure<JSONValue>] = [:]
            for wire in when.wires { sources[wire.from.id] = self.node(wire.from.id) }
            let (id, events) = (step.id, events)
            let condition = WorkflowCondition(
                when,
                settings: .init(
                    environment: settings.environment, directory: settings.directory,
                    gracePeriod: settings.gracePeriod, processGroups: settings.processGroups,
                    timeout: step.timeout),
                sources: sources
            ) { started in
                events.waited(id, .condition, since: started)
                readiness?.conditionEvaluated(at: Date())
            }
            node.addCondition(condition)
            node.addObserver(ConditionCancellation(condition: condition))
            conditions.withLock { $0[step.id] = condition }
        }
        if let stop = settings.stop, !step.always, step.kind.isLeaf {
            node.addCondition(RunStopCondition(stop))
        }
        if let readiness { node.addCondition(readiness) }
        for category in step.mutex {
            node.addCondition(MutuallyExclusive<Procedure>(category: "procflow.mutex.\(category)"))
        }
    }

    /// A `forEach` step waits for its `dependsOn` and the step its list comes from; the rest
    /// of what it names (its input, condition, mutex) is each instance's.
    private func wireForEach(
        _ step: Step, _ forEach: ForEach, node: any OutputProcedure<JSONValue>
    ) {
        if let wire = forEach.listWire, let source = self.node(wire.from.id) {
            inject(into: node, from: source, wire: wire)
        }
        guard !step.always else { return }
        let own = Set(step.dependsOn.map(\.id) + (forEach.listWire.map { [$0.from.id] } ?? []))
        let dependencies = dependenciesToCheck(step).filter { own.contains($0.id) }
        if !dependencies.isEmpty { node.addCondition(DependencyOutcomeCondition(dependencies)) }
        if let stop = settings.stop { node.addCondition(RunStopCondition(stop)) }
    }

    /// The steps whose outcome decides whether `step` may run, in the order the file names them.
    private func dependenciesToCheck(_ step: Step) -> [DependencyOutcomeCondition.Dependency] {
        let takingData = Set(step.wires.map(\.wire.from.id))
        return step.prerequisites.compactMap { id in
            node(id).map { procedure in
                .init(
                    id: id, procedure: procedure, takesData: takingData.contains(id),
                    tolerated: self.step(id)?.continueOnError ?? false)
            }
        }
    }

    /// Which part of step `id`'s condition made it false, in words; `nil` if it was not.
    func conditionReason(of id: String) -> String? {
        conditions.withLock { $0[id] }?.falseReason
    }

    /// Why the step `id` must not run because of the steps it depends on, judged as its
    /// ``DependencyOutcomeCondition`` judges it; `nil` if nothing stops it.
    func dependencyProblem(of id: String) -> String? {
        guard let step = step(id) else { return nil }
        return DependencyOutcomeCondition.reason(dependenciesToCheck(step))
    }

    private func inject(
        into receiver: any OutputProcedure<JSONValue>, from source: any OutputProcedure<JSONValue>,
        wire: Wire
    ) {
        guard let receiver = receiver as? any InputProcedure<JSONValue> else { return }
        injectSelected(into: receiver, from: source, wire: wire)
    }

    private func injectSelected<R: InputProcedure<JSONValue>, S: OutputProcedure<JSONValue>>(
        into receiver: R, from source: S, wire: Wire
    ) {
        receiver.injectResult(from: source) { value in try selected(by: wire, from: value) }
    }

    private func injectEnvironment<R: Procedure, S: OutputProcedure<JSONValue>>(
        into receiver: R, from source: S, wire: Wire, name: String,
        inputs: ShellProcedure.EnvironmentInputs
    ) {
        receiver.injectResult(from: source) { _, value in
            inputs.set(try selected(by: wire, from: value), for: name)
        }
    }

    private func bind<T: InputProcedure<JSONValue>>(_ group: StepGroupProcedure, to child: T) {
        group.bind(to: child)
    }

    private func bind(_ group: StepGroupProcedure, to child: any OutputProcedure<JSONValue>) {
        guard let child = child as? any InputProcedure<JSONValue> else { return }
        bind(group, to: child)
    }
}

/// The part of a wired value `wire` takes.
///
/// - Throws: a ``StepError`` when the value has nothing there.
private func selected(by wire: Wire, from value: JSONValue) throws(StepError) -> JSONValue {
    guard let result = wire.selected(from: value) else {
        throw StepError(.input, "the output of \(wire.from.id) has no value at \(wire.select!)")
    }
    return result
}

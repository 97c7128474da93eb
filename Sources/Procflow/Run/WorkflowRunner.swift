import Foundation
import ProcedureKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs a workflow: builds its procedures, runs the root group, turns what happens to steps into
/// events for the reporters, and tells how it ended.
public final class WorkflowRunner: StepEvents, @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `state`, a `Locked` mutex; reporters are
    // called one at a time, holding `reporting`.

    private struct State {
        var root: StepGroupProcedure?
        var interrupted: Int32?
        var failedFast = false
        /// The run has ended: nothing is left to kill.
        var finished = false
        /// A second signal asked for everything to be killed at once.
        var killed = false
    }

    /// Numbers the runs of this process, for their ids.
    private static let runCount = Atomic<Int>(0)

    private let workflow: Workflow
    private let options: Options
    private let reporters: [any Reporter]
    private let state = Locked(State())
    private let reporting = Locked(())
    /// Set when `--fail-fast`, or an interrupt in a workflow with `always` steps, stops the run.
    private let runStop = RunStop()
    /// Whether some step is `always`: then an interrupt leaves those to run.
    private let hasAlwaysSteps: Bool
    /// Where each step stands.
    private let records: StepRecords
    /// Every step with where it stands, in file order, depth first.
    private let nestedSteps: [NestedStep]
    /// The run's id, given to every command as `PROCFLOW_RUN_ID`, so that what a command
    /// leaves behind can be told apart from what other runs left. A run started by a command
    /// of another run extends that run's id.
    public let runID: String
    /// The directory of the workflow file, absolute: where relative paths start.
    private let directory: String
    /// The incremental steps, by id, when the run uses the cache; handed to the builder once it
    /// is made, which lets go of each as its procedure is made (the procedure keeps it while
    /// it runs): kept to the end of the run, they took 186 bytes a step. Set by ``init`` and by
    /// ``runProcedures(_:)`` before any procedure starts.
    private var incrementalSteps: IncrementalSteps
    /// How many ``incrementalSteps`` there were when the builder took them.
    private var builtIncrementalCount: Int?
    /// What the incremental steps, and the instances made as the run goes, are made in, when
    /// the run uses the cache.
    private let incrementalContext: IncrementalStep.Context?
    /// Whether the run found every step up to date, and ran nothing. Set by ``run()``, and
    /// read once it has returned.
    private(set) var isUpToDate = false
    /// The steps of ``Options/presettled`` the run settled before it started, without
    /// deciding them. Set by ``run()``.
    private(set) var settledFromSnapshot: Set<String> = []
    /// How many incremental steps the run settled before it started (nothing could stop them
    /// from running, and everything they wait for was settled too). Set by ``run()``.
    private(set) var settledBeforeRunCount = 0
    /// The process groups of the run's commands.
    private let processGroups = ProcessGroups()
    /// The executors the run's shell steps use.
    private let executors: RunExecutors
    /// The values of the workflow's secrets, masked in every event before a reporter sees it.
    private let secrets: SecretValues
    /// The jobserver the run's shell steps on this machine share, if they share one.
    private let jobserver: RunJobserver?
    /// What the executors said at the end of the run (Slurm's jobs), once ``run()`` returned.
    public private(set) var executorNotes: [String] = []
    // Set once, by `runProcedures()` before any procedure starts; read only by procedures'
    // callbacks and once they have finished. A run with nothing to do never builds one.
    private var builder: WorkflowBuilder!

    /// A runner for `workflow`, reporting to `reporters` in order; call ``run()`` to run it.
    public init(workflow: Workflow, options: Options, reporters: [any Reporter]) {
        self.workflow = workflow
        self.options = options
        self.reporters = reporters
        let nestedSteps = workflow.nestedSteps
        self.nestedSteps = nestedSteps
        records = StepRecords(nestedSteps)
        hasAlwaysSteps = nestedSteps.contains { $0.step.always }
        // Commands print JSON: a value is looked for JSON-escaped too.
        secrets = SecretValues(
            workflow.secretValues(in: options.environment), alsoAs: [JSONWriter.stringContent])
        let number = Self.runCount.wrappingAdd(1, ordering: .relaxed).newValue
        // Joined by hand: a generic `joined` costs a quarter of a million instructions the
        // first time it runs, in the runtime's lookups of its types.
        let own = "\(getpid())-\(number)"
        runID = options.environment["PROCFLOW_RUN_ID"].map { $0 + "/" + own } ?? own
        let directory = Self.directory(of: workflow)
        self.directory = directory
        let context =
            options.cache == nil
            ? nil
            : IncrementalStep.Context(
                workflow, directory: directory, environment: options.environment)
        incrementalContext = context
        // Those a snapshot may settle are made only if the run must decide them.
        incrementalSteps =
            context.map {
                IncrementalStep.all(
                    in: workflow, context: $0, excluding: Set(options.presettled.keys))
            } ?? [:]
        let jobs =
            options.jobDirectory ?? directory + "/.procflow/jobs"
        executors = RunExecutors(
            context: ExecutorContext(
                // The host too: the state directory may be shared with other machines.
                directory: jobs + "/" + String(runID.map { $0 == "/" ? "_" : $0 }) + "@"
                    + hostName(),
                environment: options.environment))
        jobserver =
            options.jobserver
            ? RunJobserver(
                slots: max(1, options.maxConcurrent),
                temporaryDirectory: temporaryDirectoryPath(),
                joining: options.jobserverToJoin)
            : nil
    }

    /// The path of the running program, from `/proc/self/exe` (one `readlink`, where
    /// Foundation's URL resolution takes a millisecond at every start).
    public static var currentExecutable: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments.first ?? "procflow" }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The builder of the run's procedures.
    private func makeBuilder() -> WorkflowBuilder {
        var environment = options.environment
        // A dotenv file does not override procflow's own environment, so that CI can.
        for (name, value) in workflow.dotenv where options.environment[name] == nil {
            environment[name] = value
        }
        for (name, value) in workflow.variables { environment[name] = value }
        for (name, value) in workflow.environment { environment[name] = value }
        environment["PROCFLOW"] = options.executable
        environment["PROCFLOW_RUN_ID"] = runID
        let options = options
        return WorkflowBuilder(
            workflow: workflow, nestedSteps: nestedSteps,
            settings: .init(
                environment: environment, directory: directory, gracePeriod: options.gracePeriod,
                captureLimit: options.captureLimit, maxConcurrent: max(1, options.maxConcurrent),
                concurrencyCategory: "procflow.run.\(runID)", processGroups: processGroups,
                stop: options.failFast || hasAlwaysSteps ? runStop : nil,
                deferringFrom: options.deferringFrom,
                executors: executors,
                defaultExecutor: workflow.defaultExecutor(override: options.executor),
                maxJobs: max(1, options.maxJobs), jobsCategory: "procflow.jobs.\(runID)",
                secrets: secrets,
                jobserver: jobserver,
                incremental: options.cache.flatMap { cache in
                    incrementalContext.map { stepContext in
                        .init(
                            context: .init(cache: cache, force: options.force, events: self),
                            steps: incrementalSteps, stepContext: stepContext)
                    }
                }),
            events: self)
    }

    /// The directory of the workflow file, absolute: where relative paths start.
    static func directory(of workflow: Workflow) -> String {
        // Lexically, as URL's standardising does, without its cost at every start.
        Procflow.directory(of: lexicallyNormalized(resolve(workflow.path, in: ".")))
    }

    /// Runs the workflow to its end and returns how it went.
    public func run() -> RunSummary {
        // Processes that leave their group stay below procflow, for ``endLeftovers()``.
        if options.ownsDescendants { LeftoverSweep.becomeSubreaper() }
        let started = Date()
        emit(RunEvent(kind: .workflowStarted(name: workflow.name, steps: records.order)))
        let (settled, everything) = settleUpToDateSteps()
        var summary: RunSummary
        if everything, state.withLock({ $0.interrupted == nil }) {
            // Nothing to run: no procedures to build, no processes to sweep.
            let rows = UpToDateReport.report(
                upToDateSteps, notes: settled.compactMapValues(\.note), to: emit)
            summary = RunSummary(
                name: workflow.name, rows: rows, result: .succeeded,
                duration: Date().timeIntervalSince(started))
            isUpToDate = true
        } else {
            runProcedures(settled)
            summary = makeSummary(duration: Date().timeIntervalSince(started))
        }
        emit(RunEvent(kind: .workflowFinished(summary)))
        return summary
    }

    private func runProcedures(_ settled: [String: SettledStep]) {
        if let cache = options.cache {
            // What the run may record: the incremental steps not settled before it.
            var (steps, files) = (0, 0)
            for (id, step) in incrementalSteps where settled[id] == nil {
                steps += 1
                files += step.sources.pathCount + step.generates.pathCount
            }
            cache.expect(steps: steps, files: files)
        }
        builder = makeBuilder()
        builtIncrementalCount = incrementalSteps.count
        incrementalSteps = [:]
        let leftOut = builder.settle(settled)
        // Ended before the run starts: reported before anything else.
        if !leftOut.isEmpty {
            reportSettled(
                records.order.compactMap { id in
                    leftOut.contains(id) ? settled[id].map { (id, $0) } : nil
                })
        }
        let root = builder.buildRoot()
        let done = DispatchSemaphore(value: 0)
        root.addDidFinishBlockObserver { _, _ in done.signal() }
        let interrupted = state.withLock { state -> Int32? in
            state.root = root
            return state.interrupted
        }
        if let interrupted { root.cancel(with: InterruptError(signal: interrupted)) }
        let queue = ProcedureQueue(name: "procflow")
        // The queue's first worker (the root's start, and what it readies) runs on this
        // thread, which has nothing else to do until the run ends, rather than on a new one.
        if let first = WorkerThreads.shared.capturingNextJob({ queue.addOperation(root) }) {
            WorkerThreads.shared.runAsWorker(first)
        }
        done.wait()
        accountForStepsThatNeverRan()
        builder.services.stopAll()
        endLeftovers()
        // Killed by now: what is left is their last lines, on their way.
        builder.services.waitForExits(timeout: 1)
        jobserver?.close()
        executorNotes = executors.endRun(
            gracePeriod: options.gracePeriod, hurry: { [state] in state.withLock { $0.killed } })
        state.withLock { $0.finished = true }
    }

    /// Settles the incremental steps found up to date before the run (``CachePreview``),
    /// and tells whether that is every step.
    private func settleUpToDateSteps() -> (
        settled: [String: SettledStep], everything: Bool
    ) {
        if let settled = options.settledBySnapshot { return (settled, false) }
        guard let cache = options.cache, !options.force,
            !incrementalSteps.isEmpty || !options.presettled.isEmpty
        else { return ([:], false) }
        // The preview asks for the record of each step it decides: when that is most of them,
        // they are all made at once and the index file's bytes let go of first.
        cache.makeRecordsAhead(deciding: incrementalSteps.count)
        let preview = CachePreview(
            workflow, nestedSteps: nestedSteps, incremental: incrementalSteps, cache: cache,
            waitsForRemote: false, presettled: options.presettled)
        let result = preview.settle(incrementalSteps, with: cache)
        // None is settled if a file could not be put back: each is decided as it comes.
        if !result.settled.isEmpty { settledFromSnapshot = Set(preview.settledFromSnapshot.keys) }
        settledBeforeRunCount = result.settled.count
        return result
    }

    /// Whether the run may leave a snapshot of its settled incremental steps: it has no step
    /// that the cache decides as the run goes.
    var leavesSnapshotOfSettledSteps: Bool { !decidesStepsAsItGoes }

    /// How many incremental steps the run has, those ``Options/presettled`` names included.
    var incrementalStepCount: Int {
        (builtIncrementalCount ?? incrementalSteps.count) + options.presettled.count
    }

    /// Whether the cache decides some step as the run goes: an instance of a `forEach` whose
    /// steps are incremental.
    private var decidesStepsAsItGoes: Bool {
        let forEachSteps = Set(nestedSteps.filter { $0.step.forEach != nil }.map(\.step.id))
        return nestedSteps.contains { nested in
            nested.step.caching.isIncremental
                && (nested.step.forEach != nil
                    || nested.path.contains(where: forEachSteps.contains))
        }
    }

    /// The steps, as an up-to-date run reports them.
    var upToDateSteps: [UpToDateSnapshot.Step] {
        // No builder is made for a run with nothing to run: the steps come from the file.
        let containers = Set(nestedSteps.filter { !$0.step.kind.isLeaf }.map(\.step.id))
        return records.order.map { id in
            UpToDateSnapshot.Step(
                id: id, path: records.path(of: id), isContainer: containers.contains(id))
        }
    }

    /// Whether the run built a procedure for the step `id` (once ``run()`` has returned).
    func builtProcedure(for id: String) -> Bool {
        builder?.built(id) ?? false
    }

    /// Whether the run still holds a procedure for the step `id` (once ``run()`` has
    /// returned): not for a step built as the run went, let go of once it and the steps that
    /// wait for it had ended.
    func holdsProcedure(for id: String) -> Bool {
        builder?.node(id) != nil
    }

    /// Whether the run made the procedure that does the step `id`'s work (once ``run()`` has
    /// returned): not for an incremental step the cache found up to date as the run went.
    func madeWork(for id: String) -> Bool {
        builder?.madeWork(id) ?? false
    }

    /// How many children the procedure of the step `id` holds (once ``run()`` has returned):
    /// none for an incremental step that ran, which lets go of its command's procedure.
    func childrenHeld(by id: String) -> Int {
        (builder?.node(id) as? GroupProcedure)?.children.count ?? 0
    }

    /// What the up-to-date snapshot must look at again of the `cacheKey` parts the run worked
    /// out, where their commands run and what they are given over procflow's environment;
    /// `nil` if it cannot: a file changed too recently to be trusted, or what a command is
    /// given holds a secret (never written to disk).
    var cacheKeyRecheck:
        (
            recheck: CacheKeyValues.Recheck, directory: String,
            additions: [CacheKeyValues.Addition]
        )?
    {
        guard let values = incrementalContext?.keyValues, let recheck = values.recheck else {
            return nil
        }
        guard !recheck.commands.isEmpty else { return (recheck, values.directory, []) }
        let secret = values.additions.contains {
            workflow.secrets.contains($0.name) || secrets.mask($0.value) != $0.value
        }
        return secret ? nil : (recheck, values.directory, values.additions)
    }

    /// The steps running now: those that do work, and the groups they are in.
    public var runningSteps: [String] {
        records.running
    }

    /// The boxes of the incremental steps the runner and its builder hold (for tests: each is
    /// let go of once its procedure is made).
    var heldIncrementalSteps: [AnyObject] {
        incrementalSteps.values.map(\.box) + (builder?.unbuiltIncrementalSteps ?? [])
    }

    /// The incremental steps of the run (but those ``Options/presettled`` that it did not
    /// decide), with their sources, in file order: walked as the snapshot asks for them, not
    /// gathered in a list first (a list of 100,000 grew to 11 MB at the run's end, its peak),
    /// each step's sources made again from the step (kept for the run, a table of them took
    /// 70 bytes a step).
    var incremental: some Sequence<(id: String, sources: IncrementalStep.Files)> {
        // Only its directory: the context, copied for each step, took a retain and a release
        // of each of its fields.
        let directory = incrementalContext?.workflowDirectory
        let presettled = options.presettled
        // Those in a forEach are incremental in its instances, which the cache decides as the
        // run goes.
        let forEachSteps = Set(nestedSteps.lazy.filter { $0.step.forEach != nil }.map(\.step.id))
        return nestedSteps.lazy.compactMap {
            nested -> (id: String, sources: IncrementalStep.Files)? in
            guard let directory, presettled[nested.step.id] == nil,
                forEachSteps.isEmpty || !nested.path.contains(where: forEachSteps.contains),
                let sources = IncrementalStep.sources(of: nested.step, workflowDirectory: directory)
            else { return nil }
            return (nested.step.id, sources)
        }
    }

    /// Cancels the run because procflow received `signal`: running commands get the signal,
    /// then SIGKILL after the grace period. `always` steps still run, as after `--fail-fast`,
    /// until twice the grace period has passed (the cancelled commands' grace period, then
    /// theirs); then what is left is killed.
    public func interrupt(signal: Int32) {
        let (root, first) = state.withLock { state -> (StepGroupProcedure?, Bool) in
            let first = state.interrupted == nil
            if first { state.interrupted = signal }
            return (state.root, first)
        }
        guard first else { return }
        // Counted before the signal reaches them: some end at once.
        let commands = processGroups.commandCount + executors.commandsUnderWay
        let interruption = InterruptError(signal: signal)
        var alwaysSteps = 0
        if hasAlwaysSteps, root != nil, runStop.stop(interruption) {
            for procedure in builder.cancellableLeaves() { procedure.cancel(with: interruption) }
            alwaysSteps =
                nestedSteps.filter {
                    $0.step.always && records[$0.step.id].map { !$0.status.isDone } == true
                }.count
            // The cancelled commands have the grace period to end (then SIGKILL); the always
            // steps that wait for them, the grace period after that.
            DispatchQueue.global().asyncAfter(deadline: .now() + 2 * options.gracePeriod) {
                [weak self] in self?.kill()
            }
        } else {
            root?.cancel(with: interruption)
        }
        if commands + alwaysSteps > 0 {
            emit(
                RunEvent(
                    kind: .workflowInterrupted(
                        signal: signal, commands: commands, alwaysSteps: alwaysSteps,
                        gracePeriod: options.gracePeriod)))
        }
    }

    /// Kills every command of the run at once, and starts no other: a second signal's answer,
    /// or the end of the grace period the `always` steps had after an interrupt.
    public func kill() {
        let root = state.withLock { state -> StepGroupProcedure? in
            guard !state.finished else { return nil }
            state.killed = true
            return state.root
        }
        root?.cancel(with: InterruptError(signal: SIGKILL))
        processGroups.signalAll(SIGKILL)
    }

    /// Ends what the run's commands left behind (``RunTeardown``); a second signal hurries it.
    private func endLeftovers() {
        RunTeardown.endLeftovers(
            of: processGroups, runID: runID, ownsDescendants: options.ownsDescendants,
            gracePeriod: options.gracePeriod, hurry: { [state] in state.withLock { $0.killed } })
    }

    // MARK: - Step events

    func explained(_ id: String, _ reason: String) {
        if options.explain { emit(step: id, .stepExplained(reason: reason)) }
    }

    func started(_ id: String, attempt: Int) {
        if attempt == 1, options.explain, let step = builder.step(id), step.kind.isLeaf,
            options.cache == nil || !step.caching.isIncremental || step.always
        {
            emit(step: id, .stepExplained(reason: Self.whyItRuns(step, cache: options.cache)))
        }
        records.start(id, at: Date())
        emit(step: id, .stepStarted(attempt: attempt, of: builder.step(id)?.retry?.attempts ?? 1))
    }

    func added(_ steps: [(id: String, path: [String])], names: [String: String]) {
        records.add(steps, names: names)
    }

    func output(_ id: String, _ stream: ShellProcedure.Stream, _ lines: [Substring]) {
        emit(step: id, .stepOutput(stream, lines))
    }

    func retried(_ id: String, attempt: Int, of total: Int, previous: (any Error)?) {
        let reason =
            previous.map { describe(StepOutcome.classify(error: $0, cancelled: false), id: id) }
            ?? "it failed"
        let since = records[id]?.attemptStarted
        let duration = since.map { Date().timeIntervalSince($0) } ?? 0
        emit(
            step: id,
            .stepRetried(attempt: attempt, of: total, reason: reason, duration: duration))
    }

    func waited(_ id: String, _ wait: StepWait, since: Date) {
        emit(step: id, .stepWaited(wait, duration: max(0, Date().timeIntervalSince(since))))
    }

    /// Reports the steps of the cases the branch did not take as skipped, now.
    func chose(_ id: String, caseIndex: Int?) {
        guard let branch = builder.node(id) as? BranchProcedure, let chosen = branch.chosenCase
        else { return }
        skipPending(reason: "branch \(id) took the case \(chosen)") { nested in
            guard let position = nested.cases.first(where: { $0.branch == id }) else {
                return false
            }
            return position.index != caseIndex
        }
    }

    func finished(_ id: String, _ procedure: Procedure) {
        let outcome = StepOutcome.of(procedure)
        builder.services.finished(id)
        // Looked up once: every step that ends comes through here.
        let step = builder.step(id)
        let tolerated = step?.continueOnError ?? false
        let (duration, record) = records.end(id)
        guard let record, !record.status.isDone else { return }
        let kind: RunEvent.Kind
        let status: StepStatus
        var reason: String?
        switch outcome {
        case .succeeded:
            let isService = step?.service != nil
            if isService { reason = "service ready in \(formatDuration(duration ?? 0))" }
            (kind, status) = (.stepSucceeded(duration: duration ?? 0, ready: isService), .succeeded)
        case .cached(let note):
            reason = note
            (kind, status) = (.stepCached(note: note), .cached)
        case .failed(let message, let tail):
            reason = message
            kind = .stepFailed(
                reason: message, stderrTail: tail, duration: duration ?? 0, tolerated: tolerated)
            status = tolerated ? .warning : .failed
        case .skippedByCondition, .skipped, .dependencyProblem, .groupSkipped:
            reason = describe(outcome, id: id)
            (kind, status) = (.stepSkipped(reason: reason!), .skipped)
        case .cancelled(let message):
            reason = message
            (kind, status) = (.stepCancelled(reason: message, duration: duration), .cancelled)
        }
        records.settle(id, status, reason: reason)
        if status == .succeeded || status == .cached, let format = step?.outputFormat,
            format != .none, let value = output(of: id, procedure)
        {
            keep(id, value: value, format: format)
        }
        emit(step: id, kind)
        if case .branch = step?.kind {
            // Cases a branch never chose are never built: their steps are reported with it.
            skipPending(reason: "branch \(id) did not run") { $0.path.contains(id) }
        }
        if status == .failed, options.failFast { failFast(after: id) }
    }

    /// Reports `steps`, found up to date before the run and given no procedure, as cached, in
    /// order: their records under one lock, their events to the reporters under another.
    private func reportSettled(_ steps: [(id: String, step: SettledStep)]) {
        let placements = records.settleCached(steps.map { ($0.id, $0.step.note) })
        let formats = builder.outputFormats(of: steps.map(\.id))
        var events: [RunEvent] = []
        events.reserveCapacity(steps.count)
        for (index, (id, step)) in steps.enumerated() {
            keep(id, value: step.value, format: formats[index])
            var event = RunEvent(
                step: id, path: placements[index].path, kind: .stepCached(note: step.note))
            event.name = placements[index].name
            events.append(event)
        }
        emit(events)
    }

    /// The output the step `id` gave, `procedure` its node: read through the builder, which
    /// holds the node as an output procedure (a cast to the protocol looks the type up in
    /// every conformance of the program, the first time).
    private func output(of id: String, _ procedure: Procedure) -> JSONValue? {
        if let node = builder.node(id), node === procedure { return node.output.value?.value }
        return (procedure as? any OutputProcedure<JSONValue>)?.output.value?.value
    }

    /// Keeps the preview of `value`, the output of `id` in `format`, if that shows one.
    private func keep(_ id: String, value: JSONValue, format: OutputFormat) {
        guard format != .none else { return }
        records.keep(id, value: RunSummary.ValuePreview(value, format: format, secrets: secrets))
    }

    /// Reports every step that was never built and is still pending, of those `matches`
    /// accepts, as skipped for `reason`. Steps that were built report their own end.
    private func skipPending(reason: String, where matches: (NestedStep) -> Bool) {
        let candidates = nestedSteps.filter { matches($0) && builder.node($0.step.id) == nil }
        for id in records.skipPending(candidates.map(\.step.id), reason: reason) {
            emit(step: id, .stepSkipped(reason: reason))
        }
    }

    /// Cancels every step that is not `always`, leaving clean-up steps to run; steps a branch
    /// builds later are kept from starting by their ``RunStopCondition``.
    private func failFast(after id: String) {
        let cancellation = RunCancellation(message: "cancelled by --fail-fast after \(id) failed")
        guard runStop.stop(cancellation) else { return }
        state.withLock { $0.failedFast = true }
        for procedure in builder.cancellableLeaves() { procedure.cancel(with: cancellation) }
    }

    /// The sentence for an outcome, naming the dependency at fault when there is one.
    private func describe(_ outcome: StepOutcome, id: String) -> String {
        switch outcome {
        case .succeeded: return "succeeded"
        case .cached: return "up to date"
        case .failed(let message, _): return message
        case .skippedByCondition:
            return builder.conditionReason(of: id).map { "its condition is false: \($0)" }
                ?? "its condition is false"
        case .skipped(let message), .cancelled(let message): return message
        case .dependencyProblem:
            return builder.dependencyProblem(of: id) ?? "a dependency did not give its output"
        case .groupSkipped(let groupOutcome):
            guard let group = records.path(of: id).last else {
                return "its group did not run"
            }
            return "its group \(group) was skipped: \(describe(groupOutcome, id: group))"
        }
    }

    /// Why a step that is not incremental runs.
    private static func whyItRuns(_ step: Step, cache: StepCache?) -> String {
        if cache == nil { return "--no-cache" }
        if step.always { return "an always step runs every time" }
        if step.caching.cache == false { return "it says cache: false" }
        if case .http = step.kind {
            return "an http step runs every time unless it says cache: true"
        }
        return "it declares no sources, generates or depfile (not incremental)"
    }

    /// Steps that never started nor finished: in a branch case not taken, or in a group that
    /// did not run. They are reported as skipped.
    private func accountForStepsThatNeverRan() {
        for (id, path) in records.pending {
            var reason = "its group did not run"
            if let parent = path.last, let branch = builder.node(parent) as? BranchProcedure {
                if let chosen = branch.chosenCase {
                    reason = "branch \(parent) took the case \(chosen)"
                } else {
                    reason = "branch \(parent) did not run"
                }
            }
            records.settle(id, .skipped, reason: reason)
            emit(step: id, .stepSkipped(reason: reason))
        }
    }

    private func makeSummary(duration: TimeInterval) -> RunSummary {
        let rows = records.rows
        return state.withLock { state in
            let result: RunSummary.Result
            if let signal = state.interrupted {
                result = .interrupted(signal)
            } else if rows.contains(where: { $0.status == .failed }) || state.failedFast {
                result = .failed
            } else {
                result = .succeeded
            }
            return RunSummary(name: workflow.name, rows: rows, result: result, duration: duration)
        }
    }

    // MARK: - Reporting

    private func emit(step id: String, _ kind: RunEvent.Kind) {
        let (path, name) = records.placement(of: id)
        var event = RunEvent(step: id, path: path, kind: kind)
        event.name = name
        emit(event)
    }

    private func emit(_ event: RunEvent) {
        let event = secrets.isEmpty ? event : event.masking(secrets)
        reporting.withLock { _ in
            for reporter in reporters { reporter.report(event) }
        }
    }

    /// Emits `events` in order, holding the reporters once for them all.
    private func emit(_ events: [RunEvent]) {
        let events = secrets.isEmpty ? events : events.map { $0.masking(secrets) }
        reporting.withLock { _ in
            for event in events {
                for reporter in reporters { reporter.report(event) }
            }
        }
    }
}

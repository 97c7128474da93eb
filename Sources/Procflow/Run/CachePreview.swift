/// What the cache says of each step before anything runs: for `--dry-run`, and so that a run
/// can settle at once the steps whose inputs are known before it starts.
///
/// A step's wired inputs are known before the run when the steps they come from are up to
/// date: their recorded outputs are what they will give. A step is *settled* when it is up
/// to date, everything it waits for is settled (what runs before it could change the files
/// it reads), and nothing can stop it from running: no condition (its own or a group's), no
/// branch around it. A settled step that puts files back changes files others may read: the
/// steps after it are not settled, but decided when they are about to run.
struct CachePreview {
    /// What would become of a step.
    enum Verdict {
        /// It is up to date, once these generated files are put back.
        case upToDate(restoring: [String])
        /// It runs, for this reason.
        case runs(String)
        /// It runs or not depending on what runs before it: this says what.
        case mayRun(String)
    }

    /// The decisions of settled steps, by id.
    private(set) var settled: [String: CacheDecision] = [:]
    /// Steps an up-to-date snapshot settles if what they wait for is settled, with what they
    /// give (``UpToDateSnapshot/settledSteps``): not decided again.
    private let presettled: [String: SettledStep]
    /// Those of ``presettled`` found settled.
    private(set) var settledFromSnapshot: [String: SettledStep] = [:]
    /// Whether every step is settled and puts nothing back: the whole run is up to date.
    var settlesEverything: Bool { !isSettled.contains(false) }

    /// Every step, in file order, depth first; positions in it stand for steps below.
    private let steps: [NestedStep]
    private let positions: [String: Int]
    private var verdicts: [Verdict?]
    /// The positions each step's verdict depends on, once asked.
    private var knownNeeds: [[Int]?]
    /// Whether each step is settled without putting files back (for a group: all in it).
    private var isSettled: [Bool]
    /// For a run with ``presettled`` steps: whether each settled step gives what its last
    /// record gives (settled from the snapshot, or decided up to date by that record; for a
    /// group, all in it and all it waits for). A step the snapshot settles must wait only for
    /// such steps: the snapshot took it as up to date with what they gave then, and one
    /// settled by an earlier record (its sources switched back) gives something else.
    private var keepsLatest: [Bool]
    private let incremental: IncrementalSteps
    private let cache: StepCache
    /// Whether to wait for a remote cache's answers, or take a step it has not answered for
    /// as one that runs (the run asks again when the step's turn comes).
    private let waitsForRemote: Bool
    /// What the instances of `forEach` steps are made in, when the preview decides each
    /// instance of the items the file gives (a plan does; a run decides them as they come).
    private let instanceContext: IncrementalStep.Context?
    /// The verdict on each instance of the `forEach` steps decided instance by instance, by
    /// the step's id: the instance's name and its verdict, in item order.
    private(set) var instanceVerdicts: [String: [(name: String, verdict: Verdict)]] = [:]

    /// The verdicts on every step of `workflow`, whose incremental steps are `incremental`;
    /// the remote cache's answers waited for only if `waitsForRemote` (a plan waits, a run
    /// does not: the questions go out together, and steps take their answers in turn).
    /// `nestedSteps` are the workflow's, if the caller has them already.
    init(
        _ workflow: Workflow, nestedSteps: [NestedStep]? = nil,
        incremental: IncrementalSteps, cache: StepCache, waitsForRemote: Bool = true,
        instanceContext: IncrementalStep.Context? = nil, presettled: [String: SettledStep] = [:]
    ) {
        self.waitsForRemote = waitsForRemote
        self.presettled = presettled
        self.instanceContext = instanceContext
        let steps = nestedSteps ?? workflow.nestedSteps
        self.steps = steps
        var positions: [String: Int] = [:]
        positions.reserveCapacity(steps.count)
        for (position, nested) in steps.enumerated() { positions[nested.step.id] = position }
        self.positions = positions
        verdicts = Array(repeating: nil, count: steps.count)
        knownNeeds = Array(repeating: nil, count: steps.count)
        isSettled = Array(repeating: false, count: steps.count)
        keepsLatest = isSettled
        self.incremental = incremental
        self.cache = cache
        cache.files.whileNothingRuns {
            for position in steps.indices { evaluate(position) }
        }
    }

    /// The verdict on the step `id`.
    func verdict(on id: String) -> Verdict? {
        positions[id].flatMap { verdicts[$0] }
    }

    /// Evaluates `root` after everything it needs, without recursion (a chain can be long).
    private mutating func evaluate(_ root: Int) {
        guard verdicts[root] == nil else { return }
        var stack = [(position: root, ready: false)]
        while let (position, ready) = stack.popLast() {
            guard verdicts[position] == nil else { continue }
            if ready {
                verdicts[position] = verdict(of: position)
                continue
            }
            stack.append((position, true))
            for need in needs(of: position) where verdicts[need] == nil {
                stack.append((need, false))
            }
        }
    }

    /// What the verdict on a step depends on (``needs(at:)``), worked out once a step: a step
    /// asks it up to three times, and a link's hundreds of prerequisites were gathered, told
    /// apart and looked up each time.
    private mutating func needs(of position: Int) -> [Int] {
        if let known = knownNeeds[position] { return known }
        let needs = needs(at: position)
        knownNeeds[position] = needs
        return needs
    }

    /// What the verdict on a step depends on: its prerequisites and its groups', and a
    /// group's children.
    private func needs(at position: Int) -> [Int] {
        let nested = steps[position]
        var needs: [Int] = []
        func add(_ step: Step) {
            guard !step.dependsOn.isEmpty || step.wireCount > 0 else { return }
            needs += step.prerequisites.compactMap { positions[$0] }
        }
        add(nested.step)
        for group in nested.path { positions[group].map { add(steps[$0].step) } }
        if case .group(let group) = nested.step.kind {
            needs += group.steps.compactMap { positions[$0.id] }
        }
        return needs
    }

    private mutating func verdict(of position: Int) -> Verdict {
        let nested = steps[position]
        let id = nested.step.id
        let canSettle =
            nested.step.when == nil && nested.cases.isEmpty
            && nested.path.allSatisfy { positions[$0].map { steps[$0].step.when == nil } ?? true }
        for need in needs(of: position) where !isSettled[need] {
            let other = steps[need].step.id
            if case .restore? = settled[other] { return .mayRun("\(other) restores files first") }
            if steps[need].parent == id { return .mayRun("\(other) may run") }
            return .mayRun("\(other) may run first")
        }
        switch nested.step.kind {
        case .group:
            guard canSettle else { return .mayRun("its condition decides") }
            isSettled[position] = true
            keepsLatest[position] = needs(of: position).allSatisfy { keepsLatest[$0] }
            return .upToDate(restoring: [])
        case .branch:
            return .mayRun("it chooses a case when it runs")
        case .shell, .http, .file:
            break
        }
        if let forEach = nested.step.forEach, let context = instanceContext {
            return verdict(ofInstancesOf: nested, forEach, at: position, in: context, canSettle)
        }
        if canSettle, let known = presettled[id],
            needs(of: position).allSatisfy({ keepsLatest[$0] })
        {
            isSettled[position] = true
            keepsLatest[position] = true
            settledFromSnapshot[id] = known
            return .upToDate(restoring: [])
        }
        guard let spec = incremental[id] else {
            // One the snapshot settles, waiting for a step that may run: decided as it comes.
            if presettled[id] != nil { return .mayRun("it is decided when its turn comes") }
            return .runs("not incremental")
        }
        guard let inputs = knownInputs(of: nested) else {
            return .mayRun("its input is not known before the run")
        }
        let decision = cache.decide(spec, inputs: inputs, waitingForRemote: waitsForRemote)
        switch decision {
        case .run(let reason, _):
            return .runs(reason)
        case .upToDate, .restore, .fetched:
            if canSettle {
                if case .upToDate(let record, _) = decision {
                    isSettled[position] = true
                    keepsLatest[position] =
                        !presettled.isEmpty
                        && cache.latestRecord(of: id).map(record.isSameRun(as:)) == true
                }
                settled[id] = decision
            }
            switch decision {
            case .restore(_, let files), .fetched(_, let files):
                return .upToDate(restoring: files.map { spec.display($0.path) })
            default:
                return .upToDate(restoring: [])
            }
        }
    }

    /// A `forEach` step's verdict, each instance decided: up to date when every one is, else
    /// how many run; its instances' verdicts kept in ``instanceVerdicts``. Settled when each
    /// is up to date without putting files back, so that what comes after it can be decided.
    private mutating func verdict(
        ofInstancesOf nested: NestedStep, _ forEach: ForEach, at position: Int,
        in context: IncrementalStep.Context, _ canSettle: Bool
    ) -> Verdict {
        let id = nested.step.id
        guard let items = forEach.staticItems else {
            return .mayRun("its items come as the run goes")
        }
        guard let inputs = knownInputs(of: nested) else {
            return .mayRun("its input is not known before the run")
        }
        let names = forEach.instanceNames(of: id, items: items)
        var verdicts: [(name: String, verdict: Verdict)] = []
        var restoring: [String] = []
        var (running, allUpToDate) = (0, true)
        for (index, item) in items.enumerated() where forEach.only?.contains(index) ?? true {
            guard let instance = try? nested.step.instance(at: index, item: item),
                let spec = IncrementalStep(instance, context: context)
            else { return .runs("not incremental") }
            switch cache.decide(spec, inputs: inputs, waitingForRemote: waitsForRemote) {
            case .run(let reason, _):
                verdicts.append((names[index], .runs(reason)))
                (running, allUpToDate) = (running + 1, false)
            case .restore(_, let files), .fetched(_, let files):
                let shown = files.map { spec.display($0.path) }
                verdicts.append((names[index], .upToDate(restoring: shown)))
                restoring += shown
                allUpToDate = false
            case .upToDate:
                verdicts.append((names[index], .upToDate(restoring: [])))
            }
        }
        instanceVerdicts[id] = verdicts
        if allUpToDate, canSettle { isSettled[position] = true }
        guard running > 0 else { return .upToDate(restoring: restoring) }
        return .runs("\(running) of \(plural(verdicts.count, "instance"))")
    }

    /// The values wired into a step, from the records of the settled steps they come from;
    /// `nil` if one is not known.
    private func knownInputs(of nested: NestedStep) -> [(name: String, value: JSONValue)]? {
        var inputs: [(name: String, value: JSONValue)] = []
        if nested.step.wireCount > 0 {
            for (wire, role) in nested.step.wires where role != .condition {
                guard let value = recordedValue(of: wire) else { return nil }
                switch role {
                case .input: inputs.append(("input", value))
                case .environment(let name): inputs.append((name, .string(value.text)))
                case .branch, .condition, .forEach: break
                }
            }
        }
        if let parent = nested.parent.flatMap({ positions[$0] }),
            steps[parent].step.forwardsInput(to: nested.step.id)
        {
            guard let value = groupInput(of: parent) else { return nil }
            inputs.append(("input", value))
        }
        return inputs
    }

    /// The value `wire` takes from a settled step's recorded output.
    private func recordedValue(of wire: Wire) -> JSONValue? {
        output(of: wire.from.id).flatMap(wire.selected)
    }

    /// The output a settled step gives: its record's, or for a group its `outputFrom`
    /// child's.
    private func output(of id: String) -> JSONValue? {
        var current = id
        while let position = positions[current], case .group = steps[position].step.kind {
            guard let child = steps[position].step.outputChild else { return .null }
            current = child.id
        }
        if let known = settledFromSnapshot[current] { return known.value }
        guard let record = settled[current]?.record else { return nil }
        return cache.value(of: record)
    }

    /// The input a group forwards to its `inputTo` child, when known.
    private func groupInput(of position: Int) -> JSONValue? {
        let nested = steps[position]
        if let wire = nested.step.input { return recordedValue(of: wire) }
        if let parent = nested.parent.flatMap({ positions[$0] }),
            steps[parent].step.forwardsInput(to: nested.step.id)
        {
            return groupInput(of: parent)
        }
        return nil
    }
}

extension CachePreview {
    /// Settles the steps this preview found up to date (of `steps`), putting back their
    /// generated files through `cache`; and tells whether that is every step. If a file cannot
    /// be put back, nothing is settled: each step asks the cache when it is about to run.
    func settle(_ steps: IncrementalSteps, with cache: StepCache) -> (
        settled: [String: SettledStep], everything: Bool
    ) {
        var result = settledFromSnapshot
        result.reserveCapacity(settled.count + settledFromSnapshot.count)
        for (id, decision) in settled {
            guard let record = decision.record, let value = cache.value(of: record),
                let step = steps[id]
            else { return ([:], false) }
            do {
                result[id] = SettledStep(value: value, note: try cache.settle(decision, for: step))
            } catch {
                return ([:], false)
            }
        }
        return (result, settlesEverything)
    }
}

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

    /// The verdict on each step, by id.
    private(set) var verdicts: [String: Verdict] = [:]
    /// The decisions of settled steps, by id.
    private(set) var settled: [String: CacheDecision] = [:]
    /// Whether every step is settled and puts nothing back: the whole run is up to date.
    var settlesEverything: Bool { settledIDs.count == steps.count }

    /// The steps settled without putting files back, and groups of them.
    private var settledIDs: Set<String> = []
    private let steps: [String: NestedStep]
    private let incremental: [String: IncrementalStep]
    private let cache: StepCache

    /// The verdicts on every step of `workflow`, whose incremental steps are `incremental`.
    init(_ workflow: Workflow, incremental: [String: IncrementalStep], cache: StepCache) {
        var steps: [String: NestedStep] = [:]
        workflow.forEachStep { steps[$0.step.id] = $0 }
        self.steps = steps
        self.incremental = incremental
        self.cache = cache
        workflow.forEachStep { evaluate($0.step.id) }
    }

    /// Evaluates `root` after everything it needs, without recursion (a chain can be long).
    private mutating func evaluate(_ root: String) {
        var stack = [(id: root, ready: false)]
        while let (id, ready) = stack.popLast() {
            guard verdicts[id] == nil else { continue }
            if ready {
                verdicts[id] = verdict(of: id)
                continue
            }
            stack.append((id, true))
            for need in needs(of: id) where verdicts[need] == nil { stack.append((need, false)) }
        }
    }

    /// What the verdict on `id` depends on: a step's prerequisites and its groups', a
    /// group's children.
    private func needs(of id: String) -> [String] {
        guard let nested = steps[id] else { return [] }
        var needs = nested.step.prerequisites
        for group in nested.path { needs += steps[group]?.step.prerequisites ?? [] }
        if case .group(let group) = nested.step.kind { needs += group.steps.map(\.id) }
        return needs
    }

    private mutating func verdict(of id: String) -> Verdict {
        let nested = steps[id]!
        let step = nested.step
        let canSettle =
            step.when == nil && nested.cases.isEmpty
            && nested.path.allSatisfy { steps[$0]?.step.when == nil }
        for need in needs(of: id) where !settledIDs.contains(need) {
            if case .restore? = settled[need] { return .mayRun("\(need) restores files first") }
            if case .group(let group) = step.kind, group.steps.contains(where: { $0.id == need }) {
                return .mayRun("\(need) may run")
            }
            return .mayRun("\(need) may run first")
        }
        switch step.kind {
        case .group:
            guard canSettle else { return .mayRun("its condition decides") }
            settledIDs.insert(id)
            return .upToDate(restoring: [])
        case .branch:
            return .mayRun("it chooses a case when it runs")
        case .shell, .http, .file:
            break
        }
        guard let spec = incremental[id] else { return .runs("not incremental") }
        var inputs: [(name: String, value: JSONValue)] = []
        for (wire, role) in step.wires where role != .condition {
            guard let value = recordedValue(of: wire) else {
                return .mayRun("the output of \(wire.from.id) is not known")
            }
            switch role {
            case .input: inputs.append(("input", value))
            case .environment(let name): inputs.append((name, .string(value.text)))
            case .branch, .condition: break
            }
        }
        if let parent = nested.parent, case .group(let group)? = steps[parent]?.step.kind,
            group.inputTo?.id == id
        {
            guard let value = groupInput(of: parent) else {
                return .mayRun("the input of its group \(parent) is not known")
            }
            inputs.append(("input", value))
        }
        let decision = cache.decide(spec, inputs: inputs)
        switch decision {
        case .run(let reason, _):
            return .runs(reason)
        case .upToDate, .restore:
            if canSettle {
                if case .upToDate = decision { settledIDs.insert(id) }
                settled[id] = decision
            }
            guard case .restore(_, let files) = decision else { return .upToDate(restoring: []) }
            return .upToDate(restoring: files.map { spec.display($0.path) })
        }
    }

    /// The value `wire` takes from a settled step's recorded output.
    private func recordedValue(of wire: Wire) -> JSONValue? {
        output(of: wire.from.id).flatMap(wire.selected)
    }

    /// The output a settled step gives: its record's, or for a group its `outputFrom`
    /// child's.
    private func output(of id: String) -> JSONValue? {
        var current = id
        while case .group(let group)? = steps[current]?.step.kind {
            guard let child = group.outputFrom?.id else { return .null }
            current = child
        }
        guard let record = settled[current]?.record else {
            return nil
        }
        return cache.value(of: record)
    }

    /// The input a group forwards to its `inputTo` child, when known.
    private func groupInput(of id: String) -> JSONValue? {
        guard let nested = steps[id] else { return nil }
        if let wire = nested.step.input { return recordedValue(of: wire) }
        if let parent = nested.parent, case .group(let group)? = steps[parent]?.step.kind,
            group.inputTo?.id == id
        {
            return groupInput(of: parent)
        }
        return nil
    }
}

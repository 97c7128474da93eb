/// What `--dry-run` prints: the steps in an order that respects their dependencies, with what
/// each would do, and for incremental steps whether they are up to date; as text, or as one
/// JSON object with `--events json`.
struct Plan {
    /// One step of the plan.
    struct Entry {
        let step: Step
        /// The ids of the groups and branches it is in, outermost first.
        let path: [String]
    }

    let name: String
    let stepCount: Int
    /// Every step, in an order that respects dependencies.
    let entries: [Entry]
    /// What the state says of each incremental step: "up to date", "runs: …", "may run: …".
    let verdicts: [String: String]
    /// What it says of each instance of a `forEach` step whose items the file gives: the
    /// instances' names and verdicts, by the step's id.
    let instanceVerdicts: [String: [(name: String, verdict: String)]]

    /// The plan of `workflow`; with `cache`, what it says of each incremental step.
    init(_ workflow: Workflow, cache: StepCache? = nil) {
        name = workflow.name
        stepCount = workflow.allSteps.count
        entries = Self.order(workflow).map { Entry(step: $0.0, path: $0.1) }
        var verdicts: [String: String] = [:]
        var instanceVerdicts: [String: [(name: String, verdict: String)]] = [:]
        if let cache {
            let directory = WorkflowRunner.directory(of: workflow)
            let incremental = IncrementalStep.all(in: workflow, directory: directory)
            let preview = CachePreview(
                workflow, incremental: incremental, cache: cache,
                instanceContext: IncrementalStep.Context(workflow, directory: directory))
            for id in incremental.keys {
                if let verdict = preview.verdict(on: id) { verdicts[id] = Self.describe(verdict) }
            }
            for (id, instances) in preview.instanceVerdicts {
                if let verdict = preview.verdict(on: id) { verdicts[id] = Self.describe(verdict) }
                instanceVerdicts[id] = instances.map { ($0.name, Self.describe($0.verdict)) }
            }
        }
        self.verdicts = verdicts
        self.instanceVerdicts = instanceVerdicts
    }

    /// The plan as lines: `1. group/id [what it does]: notes`.
    var text: String {
        var lines = ["plan for \(name): \(plural(stepCount, "step")), in order"]
        for (number, entry) in entries.enumerated() {
            let step = entry.step
            let name = (entry.path + [step.id]).joined(separator: "/")
            var line = "\(number + 1). \(name) [\(Self.describe(step))]"
            var notes: [String] = []
            let after = step.prerequisites.sorted()
            if !after.isEmpty { notes.append("after \(after.joined(separator: ", "))") }
            if step.when != nil { notes.append("if its condition holds") }
            if let retry = step.retry { notes.append("up to \(retry.attempts) attempts") }
            if let timeout = step.timeout { notes.append("timeout \(formatDuration(timeout))") }
            if step.continueOnError { notes.append("continues on error") }
            if step.always { notes.append("always") }
            if let cases = Self.caseCount(step) {
                notes.append("runs one of \(plural(cases, "case"))")
            }
            if let verdict = verdicts[step.id] { notes.append(verdict) }
            if !notes.isEmpty { line += ": " + notes.joined(separator: "; ") }
            lines.append(line)
            for (instance, verdict) in instanceVerdicts[step.id] ?? [] {
                lines.append("   \(instance): \(verdict)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The plan as one line of JSON, an event like those of a run: `{"event": "workflow.plan",
    /// "workflow": name, "steps": [...]}`, each step with `id`, `path`, `kind`, `does`, `after`
    /// (sorted), `condition`, `attempts`, `continueOnError`, `always`, `mutex`, and `timeout`,
    /// `cases` (a branch's count) and `cache` (what the state says of an incremental step) when
    /// it has them.
    var json: String {
        let steps = entries.map { entry -> JSONValue in
            let step = entry.step
            var object: [String: JSONValue] = [
                "id": .string(step.id), "path": .array(entry.path.map(JSONValue.string)),
                "kind": .string(step.kind.name), "does": .string(Self.describe(step)),
                "after": .array(step.prerequisites.sorted().map(JSONValue.string)),
                "condition": .bool(step.when != nil),
                "attempts": .number(Double(step.retry?.attempts ?? 1)),
                "continueOnError": .bool(step.continueOnError), "always": .bool(step.always),
                "mutex": .array(step.mutex.map(JSONValue.string)),
            ]
            if let timeout = step.timeout { object["timeout"] = .number(timeout) }
            if let cases = Self.caseCount(step) { object["cases"] = .number(Double(cases)) }
            if let verdict = verdicts[step.id] { object["cache"] = .string(verdict) }
            if let instances = instanceVerdicts[step.id] {
                object["instances"] = .array(
                    instances.map {
                        .object(["name": .string($0.name), "cache": .string($0.verdict)])
                    })
            }
            return .object(object)
        }
        return JSONWriter.string([
            ("event", .string("workflow.plan")), ("workflow", .string(name)),
            ("steps", .array(steps)),
        ]) + "\n"
    }

    /// How many cases a branch chooses from, `otherwise` counted when it has steps.
    private static func caseCount(_ step: Step) -> Int? {
        guard case .branch(let branch) = step.kind else { return nil }
        return branch.cases.count + (branch.otherwise.isEmpty ? 0 : 1)
    }

    private static func describe(_ verdict: CachePreview.Verdict) -> String {
        switch verdict {
        case .upToDate(let files) where files.isEmpty: return "up to date"
        case .upToDate(let files):
            return "up to date once it restores \(files.joined(separator: ", "))"
        case .runs(let reason): return "runs: \(reason)"
        case .mayRun(let reason): return "may run: \(reason)"
        }
    }

    private static func describe(_ step: Step) -> String {
        switch step.kind {
        case .shell(let shell):
            let service = shell.service.map { "service, ready on \($0.ready.summary); " } ?? ""
            switch shell.command {
            case .script(let script):
                return "\(service)shell: \(script.split(separator: "\n").first ?? "")"
            case .argv(let argv): return "\(service)run: \(argv.joined(separator: " "))"
            }
        case .http(let http): return "http: \(http.method) \(http.url)"
        case .file(let operation): return "file \(operation.name)"
        case .group(let group): return "group of \(plural(group.steps.count, "step"))"
        case .branch: return "branch"
        }
    }

    /// Every step (with the ids of the groups it is in), in an order where each comes after
    /// what it needs and after its group's start: Kahn's algorithm, ties broken by file order.
    static func order(_ workflow: Workflow) -> [(Step, [String])] {
        let entries = workflow.nestedSteps.map { ($0.step, $0.path) }
        let position = Dictionary(entries.enumerated().map { ($1.0.id, $0) }) { first, _ in first }
        var waiting = [Int](repeating: 0, count: entries.count)
        var next = [[Int]](repeating: [], count: entries.count)
        for (index, (step, path)) in entries.enumerated() {
            var needs = step.prerequisites
            if let parent = path.last, !needs.contains(parent) { needs.append(parent) }
            for id in needs {
                guard let other = position[id], other != index else { continue }
                // A step needs its group to have started, not finished: the group is listed
                // first and does not wait for its children here.
                waiting[index] += 1
                next[other].append(index)
            }
        }
        // The first ready step in file order next: a heap, as sorting at each step would be
        // quadratic.
        var ready = MinimumHeap((0..<entries.count).filter { waiting[$0] == 0 })
        var result: [(Step, [String])] = []
        result.reserveCapacity(entries.count)
        while let index = ready.pop() {
            result.append(entries[index])
            for successor in next[index] {
                waiting[successor] -= 1
                if waiting[successor] == 0 { ready.push(successor) }
            }
        }
        return result
    }
}

/// A binary min-heap of positions.
private struct MinimumHeap {
    private var items: [Int]

    /// A heap of `sorted`, which is in ascending order (so a heap already).
    init(_ sorted: [Int]) {
        items = sorted
    }

    mutating func push(_ item: Int) {
        items.append(item)
        var child = items.count - 1
        while child > 0, items[(child - 1) / 2] > items[child] {
            items.swapAt(child, (child - 1) / 2)
            child = (child - 1) / 2
        }
    }

    mutating func pop() -> Int? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        guard !items.isEmpty else { return first }
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < items.count else { break }
            let smaller = left + 1 < items.count && items[left + 1] < items[left] ? left + 1 : left
            guard items[smaller] < items[parent] else { break }
            items.swapAt(parent, smaller)
            parent = smaller
        }
        return first
    }
}

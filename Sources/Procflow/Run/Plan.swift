/// What `--dry-run` prints: the steps in an order that respects their dependencies, with what
/// each would do, and for incremental steps whether they are up to date.
struct Plan {
    let text: String

    /// The plan of `workflow`; with `cache`, what it says of each incremental step.
    init(_ workflow: Workflow, cache: StepCache? = nil) {
        let incremental =
            cache == nil
            ? [:]
            : IncrementalStep.all(in: workflow, directory: WorkflowRunner.directory(of: workflow))
        let preview = cache.map { CachePreview(workflow, incremental: incremental, cache: $0) }
        let order = Self.order(workflow)
        var lines = ["plan for \(workflow.name): \(plural(order.count, "step")), in order"]
        for (number, entry) in order.enumerated() {
            let (step, path) = entry
            let name = (path + [step.id]).joined(separator: "/")
            var line = "\(number + 1). \(name) [\(Self.describe(step))]"
            var notes: [String] = []
            let after = step.prerequisites.sorted()
            if !after.isEmpty { notes.append("after \(after.joined(separator: ", "))") }
            if step.when != nil { notes.append("if its condition holds") }
            if let retry = step.retry { notes.append("up to \(retry.attempts) attempts") }
            if let timeout = step.timeout { notes.append("timeout \(formatDuration(timeout))") }
            if step.continueOnError { notes.append("continues on error") }
            if step.always { notes.append("always") }
            if case .branch(let branch) = step.kind {
                notes.append(
                    "runs one of \(plural(branch.cases.count + (branch.otherwise.isEmpty ? 0 : 1), "case"))"
                )
            }
            if incremental[step.id] != nil, let verdict = preview?.verdict(on: step.id) {
                notes.append(Self.describe(verdict))
            }
            if !notes.isEmpty { line += ": " + notes.joined(separator: "; ") }
            lines.append(line)
        }
        text = lines.joined(separator: "\n") + "\n"
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
            switch shell.command {
            case .script(let script): return "shell: \(script.split(separator: "\n").first ?? "")"
            case .argv(let argv): return "run: \(argv.joined(separator: " "))"
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

/// What `--dry-run` prints: the steps in an order that respects their dependencies, with what
/// each would do.
struct Plan {
    let text: String

    init(_ workflow: Workflow) {
        var lines = [
            "plan for \(workflow.name): \(plural(workflow.allSteps.count, "step")), in order"
        ]
        for (number, entry) in Self.order(workflow).enumerated() {
            let (step, path) = entry
            let name = (path + [step.id]).joined(separator: "/")
            var line = "\(number + 1). \(name) [\(Self.describe(step))]"
            var notes: [String] = []
            let after = Set(step.dependsOn.map(\.id) + step.wires.map(\.wire.from.id)).sorted()
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
            if !notes.isEmpty { line += ": " + notes.joined(separator: "; ") }
            lines.append(line)
        }
        text = lines.joined(separator: "\n") + "\n"
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
        var entries: [(Step, [String])] = []
        func collect(_ list: [Step], _ path: [String]) {
            for step in list {
                entries.append((step, path))
                collect(step.children, path + [step.id])
            }
        }
        collect(workflow.steps, [])
        let position = Dictionary(entries.enumerated().map { ($1.0.id, $0) }) { first, _ in first }
        var waiting = [Int](repeating: 0, count: entries.count)
        var next = [[Int]](repeating: [], count: entries.count)
        for (index, (step, path)) in entries.enumerated() {
            var needs = Set(step.dependsOn.map(\.id) + step.wires.map(\.wire.from.id))
            if let parent = path.last { needs.insert(parent) }
            for id in needs {
                guard let other = position[id], other != index else { continue }
                // A step needs its group to have started, not finished: the group is listed
                // first and does not wait for its children here.
                waiting[index] += 1
                next[other].append(index)
            }
        }
        var ready = (0..<entries.count).filter { waiting[$0] == 0 }
        var result: [(Step, [String])] = []
        while !ready.isEmpty {
            ready.sort()
            let index = ready.removeFirst()
            result.append(entries[index])
            for successor in next[index] {
                waiting[successor] -= 1
                if waiting[successor] == 0 { ready.append(successor) }
            }
        }
        return result
    }
}

extension Workflow {
    /// Every step, depth first, in file order.
    public var allSteps: [Step] {
        var steps: [Step] = []
        func collect(_ list: [Step]) {
            for step in list {
                steps.append(step)
                collect(step.children)
            }
        }
        collect(self.steps)
        return steps
    }

    /// The workflow cut down to the step `id`, what it needs (transitively: dependencies, wired
    /// sources, and the groups it is in with what they need), and, for a group, all it holds.
    /// `nil` if there is no such step.
    public func restricted(to id: String) -> Workflow? {
        var parents: [String: String] = [:]
        var byID: [String: Step] = [:]
        for step in allSteps {
            byID[step.id] = step
            for child in step.children { parents[child.id] = step.id }
        }
        guard byID[id] != nil else { return nil }
        var needed: Set<String> = []
        var pending = [id]
        while let current = pending.popLast() {
            guard needed.insert(current).inserted, let step = byID[current] else { continue }
            pending += step.dependsOn.map(\.id) + step.wires.map(\.wire.from.id)
            if let parent = parents[current] { pending.append(parent) }
            if current == id { pending += step.children.map(\.id) }
            var descendants = step.children
            while current == id, let descendant = descendants.popLast() {
                pending.append(descendant.id)
                descendants += descendant.children
            }
        }
        func keep(_ list: [Step]) -> [Step] {
            list.filter { needed.contains($0.id) }.map { step in
                var step = step
                switch step.kind {
                case .group(var group):
                    group.steps = keep(group.steps)
                    step.kind = .group(group)
                case .branch(var branch):
                    for index in branch.cases.indices {
                        branch.cases[index].steps = keep(branch.cases[index].steps)
                    }
                    branch.otherwise = keep(branch.otherwise)
                    step.kind = .branch(branch)
                default:
                    break
                }
                return step
            }
        }
        var copy = self
        copy.steps = keep(steps)
        return copy
    }
}

/// A workflow's procedures and the edges between them, in file order: what `procflow graph`
/// draws.
public struct WorkflowGraph: Sendable {
    public struct Node: Sendable, Equatable {
        public var id: String
        /// "shell", "http", "file read", "group", "branch", …
        public var kind: String
        /// The group or branch the procedure is in.
        public var parent: String?
        /// For a step in a branch: the case that runs it (`= "prod"`, or `otherwise`).
        public var branchCase: String?
        public var depth: Int
        public var isContainer: Bool
    }

    public enum EdgeType: String, Sendable {
        /// Runs after.
        case dependency
        /// Takes data from.
        case input
        /// Its condition reads the output of.
        case condition
    }

    public struct Edge: Sendable, Equatable {
        public var from: String
        public var to: String
        public var type: EdgeType
        /// What the edge carries: `stdin`, `env VERSION /tag`, `group input`, …
        public var label: String?
    }

    public var name: String
    public var nodes: [Node] = []
    public var edges: [Edge] = []

    public init(_ workflow: Workflow) {
        name = workflow.name
        add(workflow.steps, parent: nil, branchCase: nil, depth: 0)
    }

    private mutating func add(_ steps: [Step], parent: String?, branchCase: String?, depth: Int) {
        for step in steps {
            nodes.append(
                Node(
                    id: step.id, kind: kindName(step), parent: parent, branchCase: branchCase,
                    depth: depth,
                    isContainer: !step.children.isEmpty || step.isContainer))
            for reference in step.dependsOn {
                edges.append(Edge(from: reference.id, to: step.id, type: .dependency, label: nil))
            }
            for (wire, role) in step.wires {
                edges.append(
                    Edge(
                        from: wire.from.id, to: step.id,
                        type: role == .condition ? .condition : .input,
                        label: label(role, step: step, select: wire.select)))
            }
            switch step.kind {
            case .group(let group):
                if let inputTo = group.inputTo {
                    edges.append(
                        Edge(from: step.id, to: inputTo.id, type: .input, label: "group input"))
                }
                if let outputFrom = group.outputFrom {
                    edges.append(
                        Edge(from: outputFrom.id, to: step.id, type: .input, label: "group output"))
                }
                add(group.steps, parent: step.id, branchCase: nil, depth: depth + 1)
            case .branch(let branch):
                for branchCase in branch.cases {
                    add(
                        branchCase.steps, parent: step.id,
                        branchCase: "= \(JSONWriter.string(branchCase.equals))", depth: depth + 1)
                }
                add(branch.otherwise, parent: step.id, branchCase: "otherwise", depth: depth + 1)
            default:
                break
            }
        }
    }

    private func kindName(_ step: Step) -> String {
        if case .file(let operation) = step.kind { return "file \(operation.name)" }
        return step.kind.name
    }

    private func label(_ role: WireRole, step: Step, select: JSONPointer?) -> String {
        var label: String
        switch role {
        case .input:
            switch step.kind {
            case .shell: label = "stdin"
            case .http: label = "body"
            default: label = "input"
            }
        case .environment(let name): label = "env \(name)"
        case .branch: label = "on"
        case .condition: label = "when"
        }
        if let select, !select.isRoot { label += " \(select)" }
        return label
    }
}

extension Step {
    /// Whether the step holds other steps (a group or a branch), even when it has none.
    var isContainer: Bool {
        switch kind {
        case .group, .branch: return true
        default: return false
        }
    }
}

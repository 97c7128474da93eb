/// A workflow's procedures and the edges between them, in file order: what `procflow graph`
/// draws.
public struct WorkflowGraph: Sendable {
    /// A procedure, as the graph draws it.
    public struct Node: Sendable, Equatable {
        /// The procedure's id.
        public var id: String
        /// "shell", "http", "file read", "group", "branch", …
        public var kind: String
        /// The group or branch the procedure is in.
        public var parent: String?
        /// For a step in a branch: the case that runs it (`= "prod"`, or `otherwise`).
        public var branchCase: String?
        /// How many groups and branches it is in.
        public var depth: Int
        /// Whether it is a group or a branch.
        public var isContainer: Bool
        /// The procedure's `description`.
        public var description: String?
        /// What it declares for incremental runs.
        public var caching = Caching()
    }

    /// What an edge means.
    public enum EdgeType: String, Sendable {
        /// Runs after.
        case dependency
        /// Takes data from.
        case input
        /// Its condition reads the output of.
        case condition
    }

    /// An edge from the procedure that comes first to the one that waits for it.
    public struct Edge: Sendable, Equatable {
        /// The procedure that comes first.
        public var from: String
        /// The procedure that waits for it.
        public var to: String
        /// What the edge means.
        public var type: EdgeType
        /// What the edge carries: `stdin`, `env VERSION /tag`, `group input`, …
        public var label: String?
    }

    /// The workflow's name.
    public var name: String
    /// Every procedure, in file order, depth first.
    public var nodes: [Node] = []
    /// Every edge, grouped by the procedure that waits, in file order.
    public var edges: [Edge] = []

    /// The graph of `workflow`.
    public init(_ workflow: Workflow) {
        name = workflow.name
        var branches: [String: Branch] = [:]
        workflow.forEachStep { nested in
            let step = nested.step
            if case .branch(let branch) = step.kind { branches[step.id] = branch }
            let branchCase = nested.parentCase.map { position in
                position.index.map {
                    "= \(JSONWriter.string(branches[position.branch]!.cases[$0].equals))"
                } ?? "otherwise"
            }
            nodes.append(
                Node(
                    id: step.id, kind: kindName(step), parent: nested.parent,
                    branchCase: branchCase, depth: nested.path.count,
                    isContainer: !step.children.isEmpty || step.isContainer,
                    description: step.description, caching: step.caching))
            addEdges(of: step)
        }
    }

    private mutating func addEdges(of step: Step) {
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
        if case .group(let group) = step.kind {
            if let inputTo = group.inputTo {
                edges.append(
                    Edge(from: step.id, to: inputTo.id, type: .input, label: "group input"))
            }
            if let outputFrom = group.outputFrom {
                edges.append(
                    Edge(from: outputFrom.id, to: step.id, type: .input, label: "group output"))
            }
        }
    }

    private func kindName(_ step: Step) -> String {
        let kind = plainKindName(step)
        guard let forEach = step.forEach else { return kind }
        let items =
            forEach.items.count.map { plural($0, "item") }
            ?? "the items of \(forEach.listWire?.from.id ?? "")"
        return "\(kind), for each of \(items) as \(forEach.variable)"
    }

    private func plainKindName(_ step: Step) -> String {
        if case .file(let operation) = step.kind { return "file \(operation.name)" }
        if step.service != nil { return "shell service" }
        if case .group(let group) = step.kind, let file = group.includedFrom {
            return "include \(file)"
        }
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
        case .forEach: label = "for each"
        }
        if let select, !select.isRoot { label += " \(select)" }
        return label
    }
}

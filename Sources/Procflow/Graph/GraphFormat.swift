/// The ways `procflow graph` draws a workflow.
public enum GraphFormat: String, CaseIterable, Sendable {
    /// An indented tree with each procedure's incoming edges labelled.
    case text
    /// Graphviz, with groups as clusters.
    case dot
    /// A Mermaid flowchart, with groups as subgraphs.
    case mermaid
    /// Nodes and typed edges.
    case json

    /// Draws `graph`.
    public func render(_ graph: WorkflowGraph) -> String {
        switch self {
        case .text: return Self.text(graph)
        case .dot: return Self.dot(graph)
        case .mermaid: return Self.mermaid(graph)
        case .json: return Self.json(graph)
        }
    }

    private static func incoming(_ graph: WorkflowGraph) -> [String: [WorkflowGraph.Edge]] {
        Dictionary(grouping: graph.edges, by: \.to)
    }

    private static func text(_ graph: WorkflowGraph) -> String {
        let count = graph.nodes.count
        var lines = ["workflow \"\(graph.name)\": \(count) procedure\(count == 1 ? "" : "s")"]
        let incoming = incoming(graph)
        for node in graph.nodes {
            let indent = String(repeating: "  ", count: node.depth)
            var line = "\(indent)\(node.id) [\(node.kind)]"
            if let branchCase = node.branchCase { line += " (when \(node.parent!) \(branchCase))" }
            lines.append(line)
            for edge in incoming[node.id] ?? [] {
                let what = edge.label.map { "\(edge.type.rawValue): \($0)" } ?? edge.type.rawValue
                lines.append("\(indent)  <- \(edge.from) (\(what))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func dot(_ graph: WorkflowGraph) -> String {
        var lines = ["digraph \(quoted(graph.name)) {", "  rankdir=LR;", "  node [shape=box];"]
        var open: [String] = []
        for node in graph.nodes {
            while let last = open.last, last != node.parent {
                open.removeLast()
                lines.append(String(repeating: "  ", count: open.count + 1) + "}")
            }
            let indent = String(repeating: "  ", count: open.count + 1)
            // Label lines are escaped one by one and joined with DOT's own line break.
            let label = ([node.id, node.kind] + (node.branchCase.map { [$0] } ?? []))
                .map(escape).joined(separator: "\\n")
            if node.isContainer {
                lines.append("\(indent)subgraph \(quoted("cluster_" + node.id)) {")
                lines.append("\(indent)  label=\(quoted("\(node.id) (\(node.kind))"));")
                lines.append("\(indent)  \(quoted(node.id)) [label=\"\(label)\", shape=folder];")
                open.append(node.id)
            } else {
                lines.append("\(indent)\(quoted(node.id)) [label=\"\(label)\"];")
            }
        }
        while !open.isEmpty {
            open.removeLast()
            lines.append(String(repeating: "  ", count: open.count + 1) + "}")
        }
        for edge in graph.edges {
            var attributes: [String] = []
            switch edge.type {
            case .dependency: break
            case .input: attributes.append("color=blue")
            case .condition: attributes.append("style=dashed")
            }
            if let label = edge.label { attributes.append("label=\(quoted(label))") }
            let suffix = attributes.isEmpty ? "" : " [\(attributes.joined(separator: ", "))]"
            lines.append("  \(quoted(edge.from)) -> \(quoted(edge.to))\(suffix);")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func mermaid(_ graph: WorkflowGraph) -> String {
        // Mermaid ids are restricted; ids are numbered and the names go in labels.
        var ids: [String: String] = [:]
        for (index, node) in graph.nodes.enumerated() { ids[node.id] = "n\(index)" }
        var lines = ["flowchart LR"]
        var open: [String] = []
        for node in graph.nodes {
            while let last = open.last, last != node.parent {
                open.removeLast()
                lines.append(String(repeating: "  ", count: open.count + 1) + "end")
            }
            let indent = String(repeating: "  ", count: open.count + 1)
            var label = "\(node.id) (\(node.kind))"
            if let branchCase = node.branchCase { label += " \(branchCase)" }
            if node.isContainer {
                lines.append("\(indent)subgraph \(ids[node.id]!) [\"\(mermaidEscape(label))\"]")
                open.append(node.id)
            } else {
                lines.append("\(indent)\(ids[node.id]!)[\"\(mermaidEscape(label))\"]")
            }
        }
        while !open.isEmpty {
            open.removeLast()
            lines.append(String(repeating: "  ", count: open.count + 1) + "end")
        }
        for edge in graph.edges {
            let from = ids[edge.from]!
            let to = ids[edge.to]!
            switch (edge.type, edge.label) {
            case (.dependency, _): lines.append("  \(from) --> \(to)")
            case (.input, let label?):
                lines.append("  \(from) == \"\(mermaidEscape(label))\" ==> \(to)")
            case (.input, nil): lines.append("  \(from) ==> \(to)")
            case (.condition, let label):
                lines.append("  \(from) -. \"\(mermaidEscape(label ?? "when"))\" .-> \(to)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func json(_ graph: WorkflowGraph) -> String {
        let nodes = graph.nodes.map { node -> JSONValue in
            var object: [String: JSONValue] = [
                "id": .string(node.id), "kind": .string(node.kind),
                "parent": node.parent.map(JSONValue.string) ?? .null,
            ]
            if let branchCase = node.branchCase { object["case"] = .string(branchCase) }
            return .object(object)
        }
        let edges = graph.edges.map { edge -> JSONValue in
            var object: [String: JSONValue] = [
                "from": .string(edge.from), "to": .string(edge.to),
                "type": .string(edge.type.rawValue),
            ]
            if let label = edge.label { object["label"] = .string(label) }
            return .object(object)
        }
        return JSONWriter.string([
            ("workflow", .string(graph.name)), ("nodes", .array(nodes)), ("edges", .array(edges)),
        ]) + "\n"
    }

    private static func quoted(_ text: String) -> String {
        "\"\(escape(text))\""
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
            of: "\"", with: "\\\"")
    }

    private static func mermaidEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "#quot;")
    }
}

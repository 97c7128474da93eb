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
            if let files = describe(node.caching) { lines.append("\(indent)  \(files)") }
            for edge in incoming[node.id] ?? [] {
                let what = edge.label.map { "\(edge.type.rawValue): \($0)" } ?? edge.type.rawValue
                lines.append("\(indent)  <- \(edge.from) (\(what))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// "sources: a.c, *.h; generates: a.o; depfile: a.d; cache: true", or `nil` if the step
    /// declares none of them.
    private static func describe(_ caching: Caching) -> String? {
        var parts: [String] = []
        if !caching.sources.isEmpty {
            parts.append("sources: " + caching.sources.map(\.text).joined(separator: ", "))
        }
        if !caching.generates.isEmpty {
            parts.append("generates: " + caching.generates.map(\.text).joined(separator: ", "))
        }
        if let depfile = caching.depfile { parts.append("depfile: \(depfile)") }
        if let cache = caching.cache { parts.append("cache: \(cache)") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    private static func dot(_ graph: WorkflowGraph) -> String {
        var lines = ["digraph \(quoted(graph.name)) {", "  rankdir=LR;", "  node [shape=box];"]
        appendNested(graph.nodes, closingWith: "}", to: &lines) { node, indent in
            // Label lines are escaped one by one and joined with DOT's own line break.
            let label = ([node.id, node.kind] + (node.branchCase.map { [$0] } ?? []))
                .map(escape).joined(separator: "\\n")
            guard node.isContainer else {
                return ["\(indent)\(quoted(node.id)) [label=\"\(label)\"];"]
            }
            return [
                "\(indent)subgraph \(quoted("cluster_" + node.id)) {",
                "\(indent)  label=\(quoted("\(node.id) (\(node.kind))"));",
                "\(indent)  \(quoted(node.id)) [label=\"\(label)\", shape=folder];",
            ]
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

    /// Appends the lines `body` gives for each node (with the indent of its depth), in order;
    /// a container's lines open a block that the nodes inside it go into, closed with `closer`
    /// once the walk leaves it. Nodes come depth first, each container before its contents.
    private static func appendNested(
        _ nodes: [WorkflowGraph.Node], closingWith closer: String, to lines: inout [String],
        _ body: (WorkflowGraph.Node, String) -> [String]
    ) {
        var open: [String] = []
        func close() {
            open.removeLast()
            lines.append(String(repeating: "  ", count: open.count + 1) + closer)
        }
        for node in nodes {
            while let last = open.last, last != node.parent { close() }
            lines += body(node, String(repeating: "  ", count: open.count + 1))
            if node.isContainer { open.append(node.id) }
        }
        while !open.isEmpty { close() }
    }

    private static func mermaid(_ graph: WorkflowGraph) -> String {
        // Mermaid ids are restricted; ids are numbered and the names go in labels.
        var ids: [String: String] = [:]
        for (index, node) in graph.nodes.enumerated() { ids[node.id] = "n\(index)" }
        var lines = ["flowchart LR"]
        appendNested(graph.nodes, closingWith: "end", to: &lines) { node, indent in
            var label = "\(node.id) (\(node.kind))"
            if let branchCase = node.branchCase { label += " \(branchCase)" }
            guard node.isContainer else {
                return ["\(indent)\(ids[node.id]!)[\"\(mermaidEscape(label))\"]"]
            }
            return ["\(indent)subgraph \(ids[node.id]!) [\"\(mermaidEscape(label))\"]"]
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
            let caching = node.caching
            if !caching.sources.isEmpty {
                object["sources"] = .array(caching.sources.map { .string($0.text) })
            }
            if !caching.generates.isEmpty {
                object["generates"] = .array(caching.generates.map { .string($0.text) })
            }
            if let depfile = caching.depfile { object["depfile"] = .string(depfile) }
            if let cache = caching.cache { object["cache"] = .bool(cache) }
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

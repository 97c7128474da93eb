/// The HTML report's dependency graph, as inline SVG: steps in columns by how many steps come
/// before them (a step after a group comes after everything in it; a step in a group after
/// the group's start), in file order within a column, coloured by status; edges as the graph
/// types them (dependency, input, condition) and dotted lines from a group or branch to what
/// it holds.
enum GraphSVG {
    /// The most steps drawn; a larger workflow gets a sentence instead.
    static let maximumSteps = 400

    private static let (nodeWidth, nodeHeight) = (170, 30)
    private static let (columnWidth, rowHeight, margin) = (220, 44, 20)

    /// The graph of `run`, or a sentence saying why there is none.
    static func render(_ run: RunRecord) -> String {
        let nodes = run.graph.nodes
        guard nodes.count <= maximumSteps else {
            return
                "<p>The graph of \(nodes.count) steps is not drawn here (at most \(maximumSteps)): "
                + "<code>procflow graph FILE --format dot</code> draws it.</p>\n"
        }
        let columns = columns(run.graph)
        var rows: [Int: Int] = [:]
        var origin: [String: (x: Int, y: Int)] = [:]
        for node in nodes {
            let column = columns[node.id] ?? 0
            let row = rows[column, default: 0]
            rows[column] = row + 1
            origin[node.id] = (margin + column * columnWidth, margin + row * rowHeight)
        }
        let width = margin * 2 + ((columns.values.max() ?? 0) * columnWidth) + nodeWidth
        let height = margin * 2 + ((rows.values.max() ?? 1) - 1) * rowHeight + nodeHeight
        var svg = "<svg class=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\""
        svg += " height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\">\n"
        svg +=
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\""
        svg +=
            " markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#666\"/></marker></defs>\n"
        for node in nodes {
            guard let parent = node.parent, let from = origin[parent], let to = origin[node.id]
            else { continue }
            svg += edge(
                from: from, to: to, style: "stroke:#bbb;stroke-dasharray:2 3", arrow: false,
                title: "\(parent) holds \(node.id)")
        }
        for link in run.graph.edges where !isBinding(link) {
            guard let from = origin[link.from], let to = origin[link.to] else { continue }
            let style: String
            switch link.type {
            case .dependency: style = "stroke:#777"
            case .input: style = "stroke:#2f7fd8"
            case .condition: style = "stroke:#d39a00;stroke-dasharray:5 3"
            }
            let title =
                "\(link.from) → \(link.to): \(link.type.rawValue)"
                + (link.label.map { " (\($0))" } ?? "")
            svg += edge(from: from, to: to, style: style, arrow: true, title: title)
        }
        for node in nodes {
            guard let (x, y) = origin[node.id], let step = run[node.id] else { continue }
            let color = step.status.presentation.color
            let dash = node.isContainer ? ";stroke-dasharray:6 3" : ""
            let label = node.id.count > 22 ? String(node.id.prefix(21)) + "…" : node.id
            svg +=
                "<g><title>\("\(node.id) [\(node.kind)]: \(step.status.rawValue)".markupEscaped())</title>"
            svg +=
                "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(nodeWidth)\" height=\"\(nodeHeight)\" rx=\"6\""
            svg += " style=\"fill:\(color)22;stroke:\(color);stroke-width:2\(dash)\"/>"
            svg += "<text x=\"\(x + 10)\" y=\"\(y + 20)\">\(label.markupEscaped())</text></g>\n"
        }
        return svg + "</svg>\n"
    }

    /// A group's binding of its input or output to a child: drawn as the dotted line of the
    /// group holding the child.
    private static func isBinding(_ edge: WorkflowGraph.Edge) -> Bool {
        edge.label == "group input" || edge.label == "group output"
    }

    /// The column of each step: one more than the last of those it waits for, and one more
    /// than its group's. Worked out by relaxation, each pass in file order, at most one pass
    /// per step (a valid workflow has no cycle).
    private static func columns(_ graph: WorkflowGraph) -> [String: Int] {
        var column: [String: Int] = [:]
        var last: [String: Int] = [:]  // a container's column, or its last step's
        let incoming = Dictionary(grouping: graph.edges.filter { !isBinding($0) }, by: \.to)
        let containers = Set(graph.nodes.filter(\.isContainer).map(\.id))
        for _ in 0...graph.nodes.count {
            var changed = false
            for node in graph.nodes {
                var value = node.parent.map { (column[$0] ?? 0) + 1 } ?? 0
                for edge in incoming[node.id] ?? [] {
                    let before =
                        containers.contains(edge.from) ? last[edge.from] : column[edge.from]
                    value = max(value, (before ?? 0) + 1)
                }
                if column[node.id] != value {
                    column[node.id] = value
                    changed = true
                }
            }
            for node in graph.nodes.reversed() {
                let value = max(column[node.id] ?? 0, last[node.id] ?? 0)
                if last[node.id] != value {
                    last[node.id] = value
                    changed = true
                }
                if let parent = node.parent, value > last[parent] ?? 0 {
                    last[parent] = value
                    changed = true
                }
            }
            if !changed { break }
        }
        return column
    }

    private static func edge(
        from: (x: Int, y: Int), to: (x: Int, y: Int), style: String, arrow: Bool, title: String
    ) -> String {
        let (x1, y1) = (from.x + nodeWidth, from.y + nodeHeight / 2)
        let (x2, y2) = (to.x, to.y + nodeHeight / 2)
        let bend = max(30, (x2 - x1) / 2)
        var path = "<path d=\"M\(x1),\(y1) C\(x1 + bend),\(y1) \(x2 - bend),\(y2) \(x2),\(y2)\""
        path += " style=\"fill:none;stroke-width:1.5;\(style)\""
        if arrow { path += " marker-end=\"url(#arrow)\"" }
        return path + "><title>\(title.markupEscaped())</title></path>\n"
    }
}

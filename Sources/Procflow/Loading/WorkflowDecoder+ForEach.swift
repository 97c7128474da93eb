extension WorkflowDecoder {
    /// A step's `forEach`: exactly one of `in` (a list), `matrix` (an object of lists) or
    /// `from` (with `select`: a wire to a JSON array), `as`, the item's name, and `name`, what
    /// each instance is called.
    func decodeForEach(_ node: JSONNode, at pointer: JSONPointer) -> ForEach? {
        guard
            var object = ObjectReader(
                node, at: pointer, report: report,
                expected: "a forEach object such as {\"in\": [1, 2]}")
        else { return nil }
        let forms = ["in", "matrix", "from"].filter { object.has($0) }
        if forms.count != 1 {
            report.error(
                forms.isEmpty
                    ? "a forEach needs its items: \"in\" (a list), \"matrix\" (an object of lists) or \"from\" (a step whose output is a list)"
                    : "a forEach takes one of \"in\", \"matrix\" and \"from\", not \(WorkflowFields.list(forms.map { "\"\($0)\"" }))",
                at: node.offset, pointer)
        }
        if report.itemVariable != nil {
            report.error(
                "a forEach cannot be inside another forEach: use a \"matrix\"", at: node.offset,
                pointer)
        }
        let variable = object.string("as", nonEmpty: true) ?? "item"
        if let problem = NamePattern.environmentVariable.problem(with: variable) {
            report.error("\"as\": \(problem)", at: node.offset, pointer.appending("as"))
        }
        var items: ForEach.Items?
        switch forms.first {
        case "in": items = decodeList(&object, "in").map(ForEach.Items.values)
        case "matrix": items = decodeMatrix(&object).map(ForEach.Items.matrix)
        case "from": items = decodeWire(in: &object).map(ForEach.Items.wire)
        default: break
        }
        if forms.first != "from", object.has("select") {
            _ = object.node("select")
            report.error(
                "\"select\" goes with \"from\"", at: node.offset, pointer.appending("select"))
        }
        // Filled with each item as the instance is made: the item is not known here.
        let name = object.string("name", nonEmpty: true)
        object.reportUnread(
            in: "a forEach", allowed: ["in", "matrix", "from", "select", "as", "name"])
        guard forms.count == 1, let items else { return nil }
        var forEach = ForEach(
            items: items, variable: variable, pointer: pointer, offset: node.offset)
        forEach.name = name
        return forEach
    }

    /// The JSON values of the array at `key`.
    private func decodeList(_ object: inout ObjectReader, _ key: String) -> [JSONValue]? {
        guard let (node, pointer) = object.node(key) else { return nil }
        guard case .array(let items) = node.value else {
            report.error(
                "expected an array of items, found \(node.typeDescription)", at: node.offset,
                pointer)
            return nil
        }
        guard items.count <= Workflow.maximumInstancesPerForEach else {
            report.error(
                "the list has \(formatCount(items.count)) items; \(Self.instanceLimit)",
                at: node.offset, pointer)
            return nil
        }
        return items.map(\.plain)
    }

    /// The limit on a forEach, as the end of a sentence.
    private static let instanceLimit =
        "a forEach makes at most \(formatCount(Workflow.maximumInstancesPerForEach)) instances"

    /// The axes of a matrix, in file order: each a name and its values.
    private func decodeMatrix(_ object: inout ObjectReader) -> [(
        name: String, values: [JSONValue]
    )]? {
        guard let (node, pointer) = object.node("matrix") else { return nil }
        guard case .object(let members) = node.value, !members.isEmpty else {
            report.error(
                "expected an object of lists, such as {\"os\": [\"linux\", \"macos\"]}",
                at: node.offset, pointer)
            return nil
        }
        guard members.count <= Workflow.maximumMatrixAxes else {
            report.error(
                "the matrix has \(members.count) axes; a matrix has at most \(Workflow.maximumMatrixAxes)",
                at: node.offset, pointer)
            return nil
        }
        var axes: [(name: String, values: [JSONValue])] = []
        for member in members {
            guard case .array(let values) = member.value.value else {
                report.error(
                    "expected a list of values, found \(member.value.typeDescription)",
                    at: member.value.offset, pointer.appending(member.key))
                continue
            }
            if axes.contains(where: { $0.name == member.key }) {
                report.error(
                    "duplicate axis \"\(member.key)\"", at: member.keyOffset,
                    pointer.appending(member.key))
                continue
            }
            axes.append((member.key, values.map(\.plain)))
        }
        guard axes.count == members.count else { return nil }
        // Counted before any combination is made: a few bytes of axes can make billions.
        let count = ForEach.Items.matrix(axes).count ?? 0
        guard count <= Workflow.maximumInstancesPerForEach else {
            let shown = count == Int.max ? "more than \(formatCount(Int.max))" : formatCount(count)
            let lengths = axes.map { String($0.values.count) }.joined(separator: " × ")
            report.error(
                "the matrix has \(shown) combinations (\(lengths)); \(Self.instanceLimit)",
                at: node.offset, pointer)
            return nil
        }
        return axes
    }
}

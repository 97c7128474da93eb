/// Decoding a file procedure's operation.
extension WorkflowDecoder {
    func decodeFile(_ object: inout ObjectReader) -> FileOperation? {
        guard let (node, pointer) = object.node("op") else {
            object.missing(
                "op",
                ": one of \(WorkflowFields.fileOperationFields.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", "))"
            )
            return nil
        }
        let names = WorkflowFields.fileOperationFields.keys.sorted()
        guard case .string(let op) = node.value, let fields = WorkflowFields.fileOperationFields[op]
        else {
            let found =
                if case .string(let op) = node.value { "\"\(op)\"" } else { node.typeDescription }
            let hint =
                if case .string(let op) = node.value { Suggestion.hint(for: op, in: names) } else {
                    ""
                }
            report.error(
                "unknown file operation \(found): expected one of \(names.map { "\"\($0)\"" }.joined(separator: ", "))\(hint)",
                at: node.offset, pointer)
            for field in WorkflowFields.kindFields["file"]!
            where !WorkflowFields.cachingFields.contains(field) {
                _ = object.node(field)
            }
            return nil
        }
        // Fields of other operations are reported as not applying to this one.
        for field in WorkflowFields.kindFields["file"]!
        where field != "op" && field != "image" && !fields.contains(field)
            && !WorkflowFields.cachingFields.contains(field) && object.has(field)
        {
            let (fieldNode, fieldPointer) = object.node(field)!
            report.error(
                "field \"\(field)\" does not apply to the file operation \"\(op)\"",
                at: fieldNode.offset,
                fieldPointer)
        }
        switch op {
        case "read": return decodeRead(&object)
        case "write": return decodeWrite(&object)
        case "copy": return decodeCopy(&object)
        case "render": return decodeRender(&object)
        case "select": return decodeSelect(&object)
        case "replace": return decodeReplace(&object)
        default: return decodeConcat(&object)
        }
    }

    /// The `read` operation.
    private func decodeRead(_ object: inout ObjectReader) -> FileOperation? {
        let path = object.string("path", required: true, nonEmpty: true, substitute: true)
        let format = object.choice("output", of: OutputFormat.self) ?? .text
        if format == .none, let (node, pointer) = object.node("output") {
            report.error(
                "a read gives its content as \"text\" or \"json\"", at: node.offset, pointer)
        }
        return path.map { .read(path: $0, format: format) }
    }

    /// The `write` operation.
    private func decodeWrite(_ object: inout ObjectReader) -> FileOperation? {
        let path = object.string("path", required: true, nonEmpty: true, substitute: true)
        let content = object.string("content", substitute: true)
        return path.map { .write(path: $0, content: content) }
    }

    /// The `copy` operation.
    private func decodeCopy(_ object: inout ObjectReader) -> FileOperation? {
        let source = object.string("source", required: true, nonEmpty: true, substitute: true)
        let destination = object.string(
            "path", required: true, nonEmpty: true, substitute: true)
        guard let source, let destination else { return nil }
        return .copy(source: source, destination: destination)
    }

    /// The `render` operation.
    private func decodeRender(_ object: inout ObjectReader) -> FileOperation? {
        var template: FileOperation.Template?
        switch (object.has("template"), object.has("text")) {
        case (true, true):
            report.error(
                "give either \"template\" (a file) or \"text\" (the template itself), not both",
                at: object.offset, object.pointer)
            _ = object.node("template")
            _ = object.node("text")
        case (true, false):
            template = object.string("template", nonEmpty: true, substitute: true).map(
                FileOperation.Template.file)
        case (false, true): template = object.string("text").map(FileOperation.Template.text)
        case (false, false):
            object.missing("template", " (or \"text\"): the template to render")
        }
        let path = object.string("path", nonEmpty: true, substitute: true)
        return template.map { .render(template: $0, path: path) }
    }

    /// The `select` operation.
    private func decodeSelect(_ object: inout ObjectReader) -> FileOperation? {
        guard let text = object.string("pointer", required: true) else { return nil }
        guard let selected = JSONPointer(parsing: text) else {
            let (node, pointer) = object.node("pointer")!
            report.error(
                "\"\(text)\" is not a JSON Pointer: it must be empty or start with '/'",
                at: node.offset, pointer)
            return nil
        }
        return .select(pointer: selected)
    }

    /// The `replace` operation.
    private func decodeReplace(_ object: inout ObjectReader) -> FileOperation? {
        let find = object.string("find", required: true)
        let replacement = object.string("replace", required: true)
        if find == "" {
            let (node, pointer) = object.node("find")!
            report.error("\"find\" must not be empty", at: node.offset, pointer)
            return nil
        }
        guard let find, let replacement else { return nil }
        return .replace(find: find, replacement: replacement)
    }

    /// The `concat` operation.
    private func decodeConcat(_ object: inout ObjectReader) -> FileOperation? {
        let paths = object.strings("paths", required: true, substitute: true)
        if let paths, paths.isEmpty {
            let (node, pointer) = object.node("paths")!
            report.error("\"paths\" must list at least one file", at: node.offset, pointer)
            return nil
        }
        let path = object.string("path", nonEmpty: true, substitute: true)
        return paths.map { .concat(paths: $0, path: path) }
    }
}

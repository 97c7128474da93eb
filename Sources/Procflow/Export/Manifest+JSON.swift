extension Manifest {
    /// The document as JSON: indented by two spaces, members in order, ending with a newline.
    public var json: String {
        var output = ""
        writeJSON(to: &output, indent: "")
        return output + "\n"
    }

    /// The document as JSON on one line, members in order.
    public var compactJSON: String {
        var output = ""
        writeJSON(to: &output, indent: nil)
        return output
    }

    /// Writes the value; `indent` is the current line's indentation, `nil` for one line.
    private func writeJSON(to output: inout String, indent: String?) {
        switch self {
        case .null: output += "null"
        case .string(let string): JSONWriter.writeString(string, to: &output)
        case .integer(let integer): output += String(integer)
        case .number(let number): output += JSONWriter.format(number)
        case .bool(let bool): output += bool ? "true" : "false"
        case .array(let items):
            writeJSONList(
                items.map { (nil, $0) }, open: "[", close: "]", to: &output, indent: indent)
        case .object(let members):
            writeJSONList(
                members.map { ($0.key, $0.value) }, open: "{", close: "}", to: &output,
                indent: indent)
        }
    }

    private func writeJSONList(
        _ items: [(key: String?, value: Manifest)], open: String, close: String,
        to output: inout String, indent: String?
    ) {
        guard !items.isEmpty else {
            output += open + close
            return
        }
        output += open
        let inner = indent.map { $0 + "  " }
        for (index, item) in items.enumerated() {
            if index > 0 { output += "," }
            if let inner { output += "\n" + inner }
            if let key = item.key {
                JSONWriter.writeString(key, to: &output)
                output += inner == nil ? ":" : ": "
            }
            item.value.writeJSON(to: &output, indent: inner)
        }
        if let indent { output += "\n" + indent }
        output += close
    }
}

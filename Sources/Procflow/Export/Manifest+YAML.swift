extension Manifest {
    /// The document as YAML in block style, ending with a newline.
    ///
    /// Every string, keys included, is written double-quoted, with every character that YAML
    /// would read differently escaped: quotes, backslashes, line breaks (YAML 1.1's `U+0085`,
    /// `U+2028` and `U+2029` too), and characters YAML does not allow printed. So no string is
    /// ever read back as a number, a boolean (`on`, `no`), null, a comment, an anchor, a tag or
    /// a multi-line scalar: the YAML and the JSON forms load to the same document.
    public var yaml: String {
        var output = ""
        switch self {
        case .array(let items) where !items.isEmpty:
            writeYAMLItems(items, to: &output, indent: "")
        case .object(let members) where !members.isEmpty:
            writeYAMLMembers(members, to: &output, indent: "", continuing: false)
        default:
            output += yamlScalar + "\n"
        }
        return output
    }

    /// The value written on one line: a quoted string, a number, a boolean, `[]` or `{}`.
    private var yamlScalar: String {
        switch self {
        case .null: return "null"
        case .string(let string): return Self.yamlQuoted(string)
        case .integer(let integer): return String(integer)
        case .number(let number): return JSONWriter.format(number)
        case .bool(let bool): return bool ? "true" : "false"
        case .array: return "[]"
        case .object: return "{}"
        }
    }

    /// Writes `members`, one per line at `indent`; with `continuing`, the first goes on the
    /// current line (after a list's "- ").
    private func writeYAMLMembers(
        _ members: [Member], to output: inout String, indent: String, continuing: Bool
    ) {
        for (index, member) in members.enumerated() {
            if index > 0 || !continuing { output += indent }
            output += Self.yamlQuoted(member.key) + ":"
            member.value.writeYAMLValue(to: &output, indent: indent + "  ")
        }
    }

    /// Writes what follows a key's colon: a scalar on the same line, or a block below it.
    private func writeYAMLValue(to output: inout String, indent: String) {
        switch self {
        case .object(let members) where !members.isEmpty:
            output += "\n"
            writeYAMLMembers(members, to: &output, indent: indent, continuing: false)
        case .array(let items) where !items.isEmpty:
            output += "\n"
            writeYAMLItems(items, to: &output, indent: indent)
        default:
            output += " " + yamlScalar + "\n"
        }
    }

    private func writeYAMLItems(_ items: [Manifest], to output: inout String, indent: String) {
        for item in items {
            output += indent + "-"
            switch item {
            case .object(let members) where !members.isEmpty:
                output += " "
                writeYAMLMembers(members, to: &output, indent: indent + "  ", continuing: true)
            case .array(let inner) where !inner.isEmpty:
                output += "\n"
                writeYAMLItems(inner, to: &output, indent: indent + "  ")
            default:
                output += " " + item.yamlScalar + "\n"
            }
        }
    }

    /// `text` as a YAML double-quoted scalar.
    static func yamlQuoted(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\t": output += "\\t"
            case "\r": output += "\\r"
            default:
                if isYAMLPrintable(scalar) {
                    output.unicodeScalars.append(scalar)
                } else if scalar.value <= 0xFF {
                    output += "\\x" + hex(scalar.value, digits: 2)
                } else if scalar.value <= 0xFFFF {
                    output += "\\u" + hex(scalar.value, digits: 4)
                } else {
                    output += "\\U" + hex(scalar.value, digits: 8)
                }
            }
        }
        return output + "\""
    }

    /// Whether YAML allows `scalar` as is in a double-quoted scalar and reads it as itself:
    /// printable, and not a line break of YAML 1.1 (`U+0085`, `U+2028`, `U+2029`) nor a byte
    /// order mark.
    private static func isYAMLPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0x7E: return true
        case 0xA0...0xD7FF: return scalar.value != 0x2028 && scalar.value != 0x2029
        case 0xE000...0xFFFD: return scalar.value != 0xFEFF
        case 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

import Foundation

/// Writes JSON text: compact, keys in the order given (or sorted for `JSONValue` objects), so
/// output is deterministic.
enum JSONWriter {
    /// An object member list whose order is kept.
    typealias Object = [(String, JSONValue)]

    static func string(_ value: JSONValue) -> String {
        var output = ""
        write(value, to: &output)
        return output
    }

    /// `text` as it stands between the quotes of a JSON string.
    static func stringContent(_ text: String) -> String {
        var output = ""
        writeString(text, to: &output)
        return String(output.dropFirst().dropLast())
    }

    /// An object with members in the order given.
    static func string(_ object: Object) -> String {
        var output = "{"
        for (index, (key, value)) in object.enumerated() {
            if index > 0 { output += "," }
            writeString(key, to: &output)
            output += ":"
            write(value, to: &output)
        }
        return output + "}"
    }

    static func write(_ value: JSONValue, to output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let bool): output += bool ? "true" : "false"
        case .number(let number): output += format(number)
        case .string(let string): writeString(string, to: &output)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                write(item, to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                writeString(key, to: &output)
                output += ":"
                write(members[key]!, to: &output)
            }
            output += "}"
        }
    }

    static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return "\(number)"
    }

    static func writeString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                output += String(format: "\\u%04x", scalar.value)
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

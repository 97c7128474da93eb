/// A JSON value, as it appears in data wired between steps and in typed comparisons.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The value's JSON type, for messages: "a string", "an object", …
    public var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value at `pointer`, or `nil` if there is none.
    public func value(at pointer: JSONPointer) -> JSONValue? {
        var current = self
        for token in pointer.tokens {
            switch current {
            case .object(let members):
                guard let next = members[token] else { return nil }
                current = next
            case .array(let items):
                guard let index = JSONPointer.arrayIndex(token), index < items.count else {
                    return nil
                }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }
}

/// A JSON value with the byte offset where it starts, as the workflow loader needs it to say
/// where a problem is. Object members keep their order.
struct JSONNode {
    enum Value {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    struct Member {
        let key: String
        let keyOffset: Int
        let value: JSONNode
    }

    let value: Value
    let offset: Int

    /// The value without locations. Recursion is bounded by the parser's nesting limit.
    var plain: JSONValue {
        switch value {
        case .null: return .null
        case .bool(let bool): return .bool(bool)
        case .number(let number): return .number(number)
        case .string(let string): return .string(string)
        case .array(let items): return .array(items.map(\.plain))
        case .object(let members):
            var object: [String: JSONValue] = [:]
            for member in members where object[member.key] == nil {
                object[member.key] = member.value.plain
            }
            return .object(object)
        }
    }
}
extension JSONNode {
    /// The value's JSON type, for messages, as ``JSONValue/typeDescription`` words it.
    var typeDescription: String {
        switch value {
        case .array: return JSONValue.array([]).typeDescription
        case .object: return JSONValue.object([:]).typeDescription
        case .null, .bool, .number, .string: return plain.typeDescription
        }
    }
}

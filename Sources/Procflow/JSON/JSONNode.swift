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
    /// The same value with every offset moved by `base`: for a file laid after others in a
    /// ``SourceMap``. Recursion is bounded by the parser's nesting limit.
    func rebased(by base: Int) -> JSONNode {
        guard base != 0 else { return self }
        switch value {
        case .array(let items):
            return JSONNode(
                value: .array(items.map { $0.rebased(by: base) }), offset: offset + base)
        case .object(let members):
            let moved = members.map {
                Member(
                    key: $0.key, keyOffset: $0.keyOffset + base, value: $0.value.rebased(by: base))
            }
            return JSONNode(value: .object(moved), offset: offset + base)
        case .null, .bool, .number, .string:
            return JSONNode(value: value, offset: offset + base)
        }
    }

    /// The value's JSON type, for messages, as ``JSONValue/typeDescription`` words it.
    var typeDescription: String {
        switch value {
        case .array: return JSONValue.array([]).typeDescription
        case .object: return JSONValue.object([:]).typeDescription
        case .null, .bool, .number, .string: return plain.typeDescription
        }
    }
}

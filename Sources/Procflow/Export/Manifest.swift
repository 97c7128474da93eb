/// A JSON document whose objects keep their members in the order given: what `procflow export`
/// prints, as JSON (``json``) or YAML (``yaml``), and the procflow workflows it hands to pods.
public indirect enum Manifest: Sendable, Equatable {
    /// `null`.
    case null
    /// A string.
    case string(String)
    /// A whole number.
    case integer(Int)
    /// A number that may have a fraction, written as procflow's JSON writer writes numbers.
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// An array.
    case array([Manifest])
    /// An object, its members in order.
    case object([Member])

    /// One member of an object.
    public struct Member: Sendable, Equatable {
        /// The member's name.
        public var key: String
        /// The member's value.
        public var value: Manifest

        /// The member `key`: `value`.
        public init(_ key: String, _ value: Manifest) {
            self.key = key
            self.value = value
        }
    }

    /// An object with the members given, in order, leaving out those whose value is `nil`.
    public static func members(_ pairs: KeyValuePairs<String, Manifest?>) -> Manifest {
        .object(pairs.compactMap { key, value in value.map { Member(key, $0) } })
    }

    /// The value of the member `key`, if this is an object that has one.
    public subscript(key: String) -> Manifest? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// This object with `member` added at the end.
    func adding(_ key: String, _ value: Manifest?) -> Manifest {
        guard case .object(var members) = self, let value else { return self }
        members.append(Member(key, value))
        return .object(members)
    }

    /// A JSON value; object members sorted by name.
    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .number(let number): self = .number(number)
        case .string(let string): self = .string(string)
        case .array(let items): self = .array(items.map(Manifest.init))
        case .object(let members):
            self = .object(members.keys.sorted().map { Member($0, Manifest(members[$0]!)) })
        }
    }

    /// An array of strings.
    static func strings(_ items: [String]) -> Manifest {
        .array(items.map(Manifest.string))
    }

    /// `nil` for an empty array, so that optional lists are left out.
    static func nonEmpty(_ items: [Manifest]) -> Manifest? {
        items.isEmpty ? nil : .array(items)
    }
}

extension Manifest: ExpressibleByStringLiteral {
    /// A string.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension Manifest: ExpressibleByIntegerLiteral {
    /// An integer.
    public init(integerLiteral value: Int) {
        self = .integer(value)
    }
}

extension Manifest: ExpressibleByBooleanLiteral {
    /// A boolean.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension Manifest: ExpressibleByArrayLiteral {
    /// An array.
    public init(arrayLiteral elements: Manifest...) {
        self = .array(elements)
    }
}

extension Manifest: ExpressibleByDictionaryLiteral {
    /// An object with the members written, in the order written.
    public init(dictionaryLiteral elements: (String, Manifest)...) {
        self = .object(elements.map { Member($0.0, $0.1) })
    }
}

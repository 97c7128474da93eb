/// Reads the members of one JSON object of a workflow file, reporting wrong types, missing
/// fields and, at the end, fields nobody read.
struct ObjectReader {
    let pointer: JSONPointer
    let offset: Int
    private let report: DecodingContext
    private let members: [JSONNode.Member]
    /// For large objects only: the position of each key's first occurrence. Small ones (all
    /// of a sane workflow's) are searched linearly, which is faster than hashing.
    private let index: [String: Int]?
    /// Whether every key is ASCII: then a key of another length is another key.
    private let keysAreASCII: Bool
    /// A bit for each key's length (see ``keyBit(_:)``): most keys looked up are absent, and
    /// this rules them out without a search when every key is ASCII.
    private let keyBits: UInt64
    private var isRead: ReadMarks

    /// Reads `node` as an object, or reports what it is instead and returns `nil`.
    init?(_ node: JSONNode, at pointer: JSONPointer, report: DecodingContext, expected: String) {
        guard case .object(let members) = node.value else {
            report.error(
                "expected \(expected), found \(node.typeDescription)", at: node.offset, pointer)
            return nil
        }
        // Every member read extends it: hung from a chain of its own unless its last tokens
        // are few (a step's place in its list), which its members' pointers then hold inline.
        self.pointer = pointer.compacted
        self.offset = node.offset
        self.report = report
        self.members = members
        isRead = ReadMarks(count: members.count)
        let keysAreASCII = members.allSatisfy { $0.key.isAllASCII }
        var index: [String: Int]? = members.count > 16 ? [:] : nil
        for (position, member) in members.enumerated() {
            let first =
                index.map { $0[member.key] }
                ?? members[..<position].firstIndex {
                    Self.same($0.key, member.key, bothASCII: keysAreASCII)
                }
            if first != nil {
                report.error(
                    "duplicate field \"\(member.key)\"", at: member.keyOffset,
                    pointer.appending(member.key))
                isRead[position] = true  // reported already
            } else {
                index?[member.key] = position
            }
        }
        self.index = index
        self.keysAreASCII = keysAreASCII
        keyBits = members.reduce(0) { $0 | Self.keyBit($1.key) }
    }

    /// Bit `n % 64` for a key `n` bytes long (its length is kept by the string; reading one
    /// of its bytes would cost more than the search it spares): two ASCII keys with different
    /// bits differ.
    private static func keyBit(_ key: String) -> UInt64 {
        1 << UInt64(key.utf8.count & 63)
    }

    /// Whether two keys are the same. Most keys compared are absent or differ in length:
    /// between ASCII keys, the length (kept by the string) rules them out before a comparison.
    /// Others compare as strings do, by canonical equivalence, whatever their lengths (the
    /// Kelvin sign is a "K").
    private static func same(_ one: String, _ other: String, bothASCII: Bool) -> Bool {
        if bothASCII, one.utf8.count != other.utf8.count { return false }
        return one == other
    }

    /// Whether `text` is empty or all whitespace. Most texts start with a byte that says they
    /// are not (an ASCII byte that is not whitespace starts a character that is not), which
    /// spares the Unicode lookup `isWhitespace` makes.
    private static func isBlank(_ text: String) -> Bool {
        if let first = text.utf8.first, first < 0x80, first != UInt8(ascii: " "),
            !(0x09...0x0D).contains(first)
        {
            return false
        }
        return text.allSatisfy(\.isWhitespace)
    }

    /// The position of `key`, one of the format's field names: ASCII, always.
    private func position(of key: String) -> Int? {
        assert(key.isAllASCII, "looked up a field name that is not ASCII: \(key)")
        if let index { return index[key] }
        if keysAreASCII, keyBits & Self.keyBit(key) == 0 { return nil }
        return members.firstIndex { Self.same($0.key, key, bothASCII: keysAreASCII) }
    }

    /// The keys present, in file order.
    var keys: [String] { members.map(\.key) }

    func has(_ key: String) -> Bool { position(of: key) != nil }

    /// The value of `key`, marking it read.
    mutating func node(_ key: String) -> (node: JSONNode, pointer: JSONPointer)? {
        guard let position = position(of: key) else { return nil }
        isRead[position] = true
        return (members[position].value, pointer.appending(key))
    }

    /// The value of `key`, leaving it unread.
    func peek(_ key: String) -> (node: JSONNode, pointer: JSONPointer)? {
        guard let position = position(of: key) else { return nil }
        return (members[position].value, pointer.appending(key))
    }

    /// Reports that `key` is missing.
    func missing(_ key: String, _ detail: String = "") {
        report.error("missing field \"\(key)\"\(detail)", at: offset, pointer)
    }

    /// A string; with `substitute`, `${name}` references to variables are filled in.
    mutating func string(
        _ key: String, required: Bool = false, nonEmpty: Bool = false, substitute: Bool = false
    ) -> String? {
        guard let (node, pointer) = node(key) else {
            if required { missing(key) }
            return nil
        }
        guard case .string(var string) = node.value else {
            report.error(
                "expected a string, found \(node.typeDescription)", at: node.offset, pointer)
            return nil
        }
        if substitute {
            guard let filled = report.substitute(string, at: node.offset, pointer) else {
                return nil
            }
            string = filled
        }
        if nonEmpty, Self.isBlank(string) {
            report.error("\"\(key)\" must not be empty", at: node.offset, pointer)
            return nil
        }
        return string
    }

    mutating func bool(_ key: String) -> Bool? {
        guard let (node, pointer) = node(key) else { return nil }
        guard case .bool(let bool) = node.value else {
            report.error(
                "expected true or false, found \(node.typeDescription)", at: node.offset, pointer)
            return nil
        }
        return bool
    }

    mutating func number(_ key: String, in range: ClosedRange<Double>, required: Bool = false)
        -> Double?
    {
        guard let (node, pointer) = node(key) else {
            if required { missing(key) }
            return nil
        }
        guard case .number(let number) = node.value else {
            report.error(
                "expected a number, found \(node.typeDescription)", at: node.offset, pointer)
            return nil
        }
        guard range.contains(number) else {
            report.error(
                "\(format(number)) is out of range: expected \(describe(range))", at: node.offset,
                pointer)
            return nil
        }
        return number
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int>, required: Bool = false) -> Int?
    {
        guard let (node, pointer) = node(key) else {
            if required { missing(key) }
            return nil
        }
        guard case .number(let number) = node.value, number == number.rounded(),
            abs(number) < 1e15
        else {
            report.error(
                "expected a whole number, found \(node.typeDescription)", at: node.offset, pointer)
            return nil
        }
        let integer = Int(number)
        guard range.contains(integer) else {
            report.error(
                "\(integer) is out of range: expected \(range.lowerBound) to \(range.upperBound)",
                at: node.offset, pointer)
            return nil
        }
        return integer
    }

    /// A string that must be one of `choices`.
    mutating func choice<C: CaseIterable & RawRepresentable>(_ key: String, of type: C.Type) -> C?
    where C.RawValue == String {
        guard let (node, pointer) = node(key) else { return nil }
        if case .string(let string) = node.value, let value = C(rawValue: string) { return value }
        let names = C.allCases.map(\.rawValue)
        guard case .string(let string) = node.value else {
            report.error(
                "expected one of \(names.map { "\"\($0)\"" }.joined(separator: ", ")), found \(node.typeDescription)",
                at: node.offset, pointer)
            return nil
        }
        guard let value = C(rawValue: string) else {
            report.error(
                "unknown value \"\(string)\": expected one of \(names.map { "\"\($0)\"" }.joined(separator: ", "))\(Suggestion.hint(for: string, in: names))",
                at: node.offset, pointer)
            return nil
        }
        return value
    }

    /// An array of strings; with `substitute`, variables are filled in; with `names`, each
    /// must be such a name.
    mutating func strings(
        _ key: String, required: Bool = false, substitute: Bool = false, names: NamePattern? = nil
    ) -> [String]? {
        guard let (node, pointer) = node(key) else {
            if required { missing(key) }
            return nil
        }
        guard case .array(let items) = node.value else {
            report.error(
                "expected an array of strings, found \(node.typeDescription)", at: node.offset,
                pointer)
            return nil
        }
        var strings: [String] = []
        for (position, item) in items.enumerated() {
            guard case .string(let string) = item.value else {
                report.error(
                    "expected a string, found \(item.typeDescription)", at: item.offset,
                    pointer.appending(position))
                continue
            }
            if let problem = names?.problem(with: string) {
                report.error(problem, at: item.offset, pointer.appending(position))
                continue
            }
            guard substitute else {
                strings.append(string)
                continue
            }
            if let filled = report.substitute(string, at: item.offset, pointer.appending(position))
            {
                strings.append(filled)
            }
        }
        return strings.count == items.count ? strings : nil
    }

    /// An object whose values are strings, in file order; with `substitute`, variables are
    /// filled in.
    mutating func stringMap(
        _ key: String, names: NamePattern = .any, substitute: Bool = false
    ) -> [(name: String, value: String)]? {
        guard let (node, pointer) = node(key) else { return nil }
        guard case .object(let members) = node.value else {
            report.error(
                "expected an object of strings, found \(node.typeDescription)", at: node.offset,
                pointer)
            return nil
        }
        var pairs: [(String, String)] = []
        var seen: Set<String> = []
        for member in members {
            let memberPointer = pointer.appending(member.key)
            guard seen.insert(member.key).inserted else {
                report.error(
                    "duplicate field \"\(member.key)\"", at: member.keyOffset, memberPointer)
                continue
            }
            if let problem = names.problem(with: member.key) {
                report.error(problem, at: member.keyOffset, memberPointer)
                continue
            }
            guard case .string(let value) = member.value.value else {
                report.error(
                    "expected a string, found \(member.value.typeDescription)",
                    at: member.value.offset,
                    memberPointer)
                continue
            }
            guard substitute else {
                pairs.append((member.key, value))
                continue
            }
            if let filled = report.substitute(value, at: member.value.offset, memberPointer) {
                pairs.append((member.key, filled))
            }
        }
        return pairs
    }

    /// Reports every field that was not read: unknown ones with a suggestion, and ones that
    /// belong to another kind of object with that said.
    ///
    /// - Parameter owner: for a field this object may not have, what does have it, if anything.
    func reportUnread(
        in context: String, allowed: [String], owner: (String) -> String? = { _ in nil }
    ) {
        for (position, member) in members.enumerated() where !isRead[position] {
            let memberPointer = pointer.appending(member.key)
            if allowed.contains(member.key) { continue }
            if let owner = owner(member.key) {
                report.error(
                    "field \"\(member.key)\" does not apply to \(context) (it belongs to \(owner))",
                    at: member.keyOffset, memberPointer)
            } else {
                report.error(
                    "unknown field \"\(member.key)\" in \(context)\(Suggestion.hint(for: member.key, in: allowed))",
                    at: member.keyOffset, memberPointer)
            }
        }
    }

    private func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    private func describe(_ range: ClosedRange<Double>) -> String {
        if range.upperBound == .greatestFiniteMagnitude {
            return "at least \(format(range.lowerBound))"
        }
        return "\(format(range.lowerBound)) to \(format(range.upperBound))"
    }
}

/// Which members of an object have been read: a bit each for the first 64, a list for any
/// beyond (an array per object read cost more than the rest of setting up its reader).
private struct ReadMarks {
    private var bits: UInt64 = 0
    private var beyond: [Bool]

    init(count: Int) {
        beyond = count > 64 ? Array(repeating: false, count: count - 64) : []
    }

    subscript(position: Int) -> Bool {
        get { position < 64 ? bits & (1 << UInt64(position)) != 0 : beyond[position - 64] }
        set {
            if position >= 64 {
                beyond[position - 64] = newValue
            } else if newValue {
                bits |= 1 << UInt64(position)
            } else {
                bits &= ~(1 << UInt64(position))
            }
        }
    }
}

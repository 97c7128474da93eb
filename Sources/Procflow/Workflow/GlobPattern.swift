/// A path pattern of a step's `sources` or `generates`: `*` and `?` match within one name,
/// `[abc]`, `[a-z]` and `[!a-z]` match one character of a set, `**` as a whole name matches
/// any number of directories, and `\` makes the next character literal.
///
/// As in a shell, `*`, `?` and `**` do not match names starting with a dot unless the pattern
/// does. A match that is a directory stands for every file below it.
public struct GlobPattern: Sendable, Equatable {
    /// One name of the pattern.
    enum Component: Sendable, Equatable {
        /// A name to take as it is.
        case literal(String)
        /// A name with wildcards.
        case wildcard([Token])
        /// `**`: any number of directories, none included.
        case anyDirectories
    }

    /// A piece of a name with wildcards.
    enum Token: Sendable, Equatable {
        case character(Unicode.Scalar)
        /// `?`
        case any
        /// `*`
        case anySequence
        /// `[...]`: ranges of characters, negated with `!` or `^`.
        case set([ClosedRange<Unicode.Scalar>], negated: Bool)
    }

    // 26 bytes, the flags last and the literal path worked out when asked: a step's list of
    // one pattern takes 80 bytes with malloc's, where one of 56 took 96.

    /// The pattern as written.
    public let text: String
    /// Its names; empty for a pattern without wildcards or escapes, which ``literalPath``
    /// says all of.
    let components: [Component]
    /// Whether it starts at the root rather than at the directory it is expanded in.
    let isAbsolute: Bool
    /// Whether it has no wildcard: it names one path, which need not exist.
    let isLiteral: Bool

    /// The path a pattern without wildcards names, its escapes taken out.
    var literalPath: String {
        guard !components.isEmpty else { return text }
        let joined = components.map { component -> String in
            if case .literal(let name) = component { return name }
            return "*"
        }.joined(separator: "/")
        return isAbsolute ? "/" + joined : joined
    }

    /// Parses `text`.
    ///
    /// - Throws: a ``GlobPattern/Problem`` for an empty pattern, an unclosed `[` or a
    ///   trailing `\`.
    init(_ text: String) throws(Problem) {
        guard !text.isEmpty else { throw Problem(message: "a pattern must not be empty") }
        self.text = text
        isAbsolute = text.utf8.first == UInt8(ascii: "/")
        // Most patterns are plain paths: a byte scan tells them.
        guard text.containsByte(where: Self.isSpecial) else {
            components = []
            isLiteral = true
            return
        }
        var components: [Component] = []
        for name in text.split(separator: "/") {
            if let component = try Self.component(name) { components.append(component) }
        }
        self.components = components
        isLiteral = components.allSatisfy {
            if case .literal = $0 { return true }
            return false
        }
    }

    /// The pattern that names `path` and nothing else, wildcard characters included.
    init(literal path: String) throws(Problem) {
        guard !path.isEmpty else { throw Problem(message: "a path must not be empty") }
        text = path
        isAbsolute = path.hasPrefix("/")
        components = []
        isLiteral = true
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "*") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "[")
            || byte == UInt8(ascii: "\\")
    }

    /// Why a pattern cannot be used.
    struct Problem: Error, Equatable {
        let message: String
    }

    private static func component(_ name: Substring) throws(Problem) -> Component? {
        if name == "." { return nil }
        if name == "**" { return .anyDirectories }
        if !name.containsByte(where: isSpecial) { return .literal(String(name)) }
        var tokens: [Token] = []
        var hasWildcard = false
        var scalars = Array(name.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "\\":
                guard let next = scalars.popFirst() else {
                    throw Problem(message: "the pattern ends with a lone '\\'")
                }
                tokens.append(.character(next))
            case "?":
                tokens.append(.any)
                hasWildcard = true
            case "*":
                if tokens.last != .anySequence { tokens.append(.anySequence) }
                hasWildcard = true
            case "[":
                tokens.append(try set(&scalars))
                hasWildcard = true
            default:
                tokens.append(.character(scalar))
            }
        }
        guard hasWildcard else {
            var literal = ""
            for case .character(let scalar) in tokens { literal.unicodeScalars.append(scalar) }
            return .literal(literal)
        }
        return .wildcard(tokens)
    }

    /// Reads a set after its `[`, up to and including its `]`.
    private static func set(_ scalars: inout ArraySlice<Unicode.Scalar>) throws(Problem) -> Token {
        var negated = false
        if let first = scalars.first, first == "!" || first == "^" {
            negated = true
            scalars.removeFirst()
        }
        var ranges: [ClosedRange<Unicode.Scalar>] = []
        var isFirst = true
        while let scalar = scalars.popFirst() {
            if scalar == "]", !isFirst { return .set(ranges, negated: negated) }
            isFirst = false
            var low = scalar
            if low == "\\", let escaped = scalars.popFirst() { low = escaped }
            if scalars.first == "-", scalars.dropFirst().first.map({ $0 != "]" }) ?? false {
                scalars.removeFirst()
                var high = scalars.removeFirst()
                if high == "\\", let escaped = scalars.popFirst() { high = escaped }
                guard low <= high else {
                    throw Problem(message: "the range \(low)-\(high) in '[...]' is backwards")
                }
                ranges.append(low...high)
            } else {
                ranges.append(low...low)
            }
        }
        throw Problem(message: "a '[' is not closed by ']'")
    }

    // MARK: - Matching

    /// Whether the name `name` matches `tokens`.
    static func matches(_ name: String, _ tokens: [Token]) -> Bool {
        let scalars = Array(name.unicodeScalars)
        if scalars.first == ".", tokens.first != .character(".") { return false }
        // Backtracking to the last `*`: linear for one star, O(n·m) at worst.
        var (name, token) = (0, 0)
        var star: (token: Int, name: Int)?
        while name < scalars.count {
            if token < tokens.count {
                switch tokens[token] {
                case .anySequence:
                    star = (token, name)
                    token += 1
                    continue
                case .any:
                    (name, token) = (name + 1, token + 1)
                    continue
                case .character(let expected) where expected == scalars[name]:
                    (name, token) = (name + 1, token + 1)
                    continue
                case .set(let ranges, let negated)
                where ranges.contains(where: { $0.contains(scalars[name]) }) != negated:
                    (name, token) = (name + 1, token + 1)
                    continue
                default:
                    break
                }
            }
            guard let last = star else { return false }
            star = (last.token, last.name + 1)
            (name, token) = (last.name + 1, last.token + 1)
        }
        while token < tokens.count, tokens[token] == .anySequence { token += 1 }
        return token == tokens.count
    }
}

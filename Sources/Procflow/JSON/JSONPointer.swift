/// A JSON Pointer (RFC 6901): `/procedures/3/dependsOn/0`.
///
/// Stored as a chain from the last token back to the root, so that extending a pointer — which
/// the workflow loader does for every value it reads — allocates one small node and copies
/// nothing.
public struct JSONPointer: Hashable, Sendable, CustomStringConvertible {
    private final class Token: Sendable {
        let parent: Token?
        let value: String

        init(parent: Token?, value: String) {
            self.parent = parent
            self.value = value
        }
    }

    private let last: Token?

    /// The unescaped reference tokens, from the root.
    public var tokens: [String] {
        var tokens: [String] = []
        var token = last
        while let current = token {
            tokens.append(current.value)
            token = current.parent
        }
        return tokens.reversed()
    }

    /// The pointer to the whole document.
    public static let root = JSONPointer(tokens: [])

    /// The pointer made of `tokens`, unescaped.
    public init(tokens: [String]) {
        var last: Token?
        for token in tokens { last = Token(parent: last, value: token) }
        self.last = last
    }

    private init(last: Token?) {
        self.last = last
    }

    /// Pointers are equal when their tokens are.
    public static func == (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        lhs.last === rhs.last || lhs.tokens == rhs.tokens
    }

    /// Hashes the tokens.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tokens)
    }

    /// Whether this is the pointer to the whole document.
    public var isRoot: Bool { last == nil }

    /// Parses `text`; `nil` if it is not a JSON Pointer.
    public init?(parsing text: String) {
        guard !text.isEmpty else {
            self.init(tokens: [])
            return
        }
        guard text.hasPrefix("/") else { return nil }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var characters = raw.makeIterator()
            while let character = characters.next() {
                guard character == "~" else {
                    token.append(character)
                    continue
                }
                switch characters.next() {
                case "0": token.append("~")
                case "1": token.append("/")
                default: return nil
                }
            }
            tokens.append(token)
        }
        self.init(tokens: tokens)
    }

    /// This pointer extended by `token`.
    public func appending(_ token: String) -> JSONPointer {
        JSONPointer(last: Token(parent: last, value: token))
    }

    /// This pointer extended by an array index.
    public func appending(_ index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// The pointer as RFC 6901 writes it: `/a/b~1c`.
    public var description: String {
        guard !tokens.isEmpty else { return "" }
        var text = ""
        for token in tokens {
            text += "/"
            guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") })
            else {
                text += token
                continue
            }
            for character in token.unicodeScalars {
                switch character {
                case "~": text += "~0"
                case "/": text += "~1"
                default: text.unicodeScalars.append(character)
                }
            }
        }
        return text
    }

    /// The array index a token stands for: digits without a leading zero.
    static func arrayIndex(_ token: String) -> Int? {
        guard !token.isEmpty, token.allSatisfy(\.isASCIIDigit),
            token == "0" || !token.hasPrefix("0")
        else { return nil }
        return Int(token)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

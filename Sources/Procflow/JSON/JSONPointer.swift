/// A JSON Pointer (RFC 6901): `/procedures/3/dependsOn/0`.
///
/// Stored as a chain from the last token back to the root, so that extending a pointer — which
/// the workflow loader does for every value it reads — copies nothing. The last token is kept
/// out of the chain until the pointer is extended: most pointers the loader makes (one per
/// value) are never extended, nor used but for a diagnostic, and cost no allocation.
public struct JSONPointer: Hashable, Sendable, CustomStringConvertible {
    private final class Token: Sendable {
        let parent: Token?
        let value: String

        init(parent: Token?, value: String) {
            self.parent = parent
            self.value = value
        }
    }

    /// The tokens, or all but the last.
    private let chain: Token?
    /// The last token, when it is not in the chain.
    private let final: String?

    /// The unescaped reference tokens, from the root.
    public var tokens: [String] {
        var tokens: [String] = final.map { [$0] } ?? []
        var token = chain
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
        for token in tokens.dropLast() { last = Token(parent: last, value: token) }
        self.init(chain: last, final: tokens.last)
    }

    private init(chain: Token?, final: String?) {
        self.chain = chain
        self.final = final
    }

    /// Pointers are equal when their tokens are.
    public static func == (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        (lhs.chain === rhs.chain && lhs.final == rhs.final) || lhs.tokens == rhs.tokens
    }

    /// Hashes the tokens.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tokens)
    }

    /// Whether this is the pointer to the whole document.
    public var isRoot: Bool { chain == nil && final == nil }

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
        JSONPointer(chain: wholeChain, final: token)
    }

    /// All the tokens as a chain: what an extension hangs from. Allocates when the last
    /// token is not in the chain yet: extend a pointer that is extended many times (an
    /// object's, by each member read) from its ``materialized`` form.
    private var wholeChain: Token? {
        final.map { Token(parent: chain, value: $0) } ?? chain
    }

    /// The same pointer, made so that extending it allocates nothing.
    var materialized: JSONPointer {
        final == nil ? self : JSONPointer(chain: wholeChain, final: nil)
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

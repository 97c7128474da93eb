/// A JSON Pointer (RFC 6901): `/procedures/3/dependsOn/0`.
///
/// Stored as a chain from the last tokens back to the root, so that extending a pointer — which
/// the workflow loader does for every value it reads — copies nothing. The last tokens are kept
/// out of the chain, as RFC 6901 writes them (`3/dependsOn/0`), while a string holds them
/// without an allocation of its own (15 bytes): most pointers the loader makes (one per value)
/// are never extended, nor used but for a diagnostic, and a step's reference to another, kept
/// for the run, costs no allocation (two a step of 100,000 when only the last token was kept
/// out of the chain).
public struct JSONPointer: Hashable, Sendable, CustomStringConvertible {
    private final class Token: Sendable {
        let parent: Token?
        /// One token or more, escaped and joined by slashes.
        let text: String

        init(parent: Token?, text: String) {
            self.parent = parent
            self.text = text
        }
    }

    /// The tokens, or all but the last few.
    private let chain: Token?
    /// The tokens after the chain, escaped and joined by slashes; `nil` when there are none.
    private let tail: String?

    /// The most bytes a string holds without an allocation.
    private static let inlineBytes = 15

    /// The unescaped reference tokens, from the root.
    public var tokens: [String] {
        texts.flatMap { text in
            text.split(separator: "/", omittingEmptySubsequences: false).map(Self.unescaped)
        }
    }

    /// The texts of the chain's links and the tail, from the root: each one token or more,
    /// escaped and joined by slashes.
    private var texts: [String] {
        var texts: [String] = tail.map { [$0] } ?? []
        var token = chain
        while let current = token {
            texts.append(current.text)
            token = current.parent
        }
        return texts.reversed()
    }

    /// The pointer to the whole document.
    public static let root = JSONPointer(tokens: [])

    /// The pointer made of `tokens`, unescaped.
    public init(tokens: [String]) {
        var last: Token?
        for token in tokens.dropLast() { last = Token(parent: last, text: Self.escaped(token)) }
        self.init(chain: last, tail: tokens.last.map(Self.escaped))
    }

    private init(chain: Token?, tail: String?) {
        self.chain = chain
        self.tail = tail
    }

    /// Pointers are equal when their tokens are.
    public static func == (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        (lhs.chain === rhs.chain && lhs.tail == rhs.tail) || lhs.tokens == rhs.tokens
    }

    /// Hashes the tokens.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tokens)
    }

    /// The first link of its chain, which pointers extended from one pointer share while
    /// their own tokens stay inline: for tests of what a pointer allocates.
    var chainBox: AnyObject? { chain }

    /// Whether this is the pointer to the whole document.
    public var isRoot: Bool { chain == nil && tail == nil }

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

    /// This pointer extended by `token`: the tokens after the chain joined while a string
    /// holds them without an allocation, else hung from the chain (one allocation).
    public func appending(_ token: String) -> JSONPointer {
        appending(escaped: Self.escaped(token))
    }

    /// This pointer extended by a token written as RFC 6901 writes it.
    private func appending(escaped: String) -> JSONPointer {
        guard let tail else { return JSONPointer(chain: chain, tail: escaped) }
        let count = tail.utf8.count + 1 + escaped.utf8.count
        guard count <= Self.inlineBytes else {
            return JSONPointer(chain: Token(parent: chain, text: tail), tail: escaped)
        }
        // Written in one go: two appends took about twice the instructions (callgrind, an
        // edited workflow's plan read).
        var (first, second) = (tail, escaped)
        let joined = first.withUTF8 { first in
            second.withUTF8 { second in
                String(unsafeUninitializedCapacity: count) { bytes in
                    _ = bytes.initialize(fromContentsOf: first)
                    bytes[first.count] = UInt8(ascii: "/")
                    _ = UnsafeMutableBufferPointer(rebasing: bytes[(first.count + 1)...])
                        .initialize(fromContentsOf: second)
                    return count
                }
            }
        }
        return JSONPointer(chain: chain, tail: joined)
    }

    /// The same pointer, made so that extending it allocates nothing: its tokens all in the
    /// chain. For a pointer extended many times (an array's, by each item).
    var materialized: JSONPointer {
        tail.map { JSONPointer(chain: Token(parent: chain, text: $0), tail: nil) } ?? self
    }

    /// The same pointer, made so that extending it allocates nothing more than it would: as
    /// it is if the tokens after its chain are few bytes (a step's place in its list, which its
    /// fields' pointers extend), else ``materialized``. For an object's, which each member read
    /// extends.
    var compacted: JSONPointer {
        (tail?.utf8.count ?? 0) <= 8 ? self : materialized
    }

    /// This pointer extended by an array index.
    public func appending(_ index: Int) -> JSONPointer {
        // Digits, which need no escaping.
        appending(escaped: String(index))
    }

    /// The pointer as RFC 6901 writes it: `/a/b~1c`.
    public var description: String {
        var text = ""
        for part in texts {
            text += "/"
            text += part
        }
        return text
    }

    /// `token` as RFC 6901 writes it: `~` as `~0`, `/` as `~1`; the same string when it has
    /// neither.
    private static func escaped(_ token: String) -> String {
        var plain = token
        guard
            plain.withUTF8({ bytes in
                bytes.contains { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }
            })
        else { return token }
        var text = ""
        for character in token.unicodeScalars {
            switch character {
            case "~": text += "~0"
            case "/": text += "~1"
            default: text.unicodeScalars.append(character)
            }
        }
        return text
    }

    /// The token `text` writes, escaped as RFC 6901 does (and as ``escaped(_:)`` made it).
    private static func unescaped(_ text: Substring) -> String {
        guard text.utf8.contains(UInt8(ascii: "~")) else { return String(text) }
        var token = ""
        var characters = text.unicodeScalars.makeIterator()
        while let character = characters.next() {
            guard character == "~" else {
                token.unicodeScalars.append(character)
                continue
            }
            token += characters.next() == "1" ? "/" : "~"
        }
        return token
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

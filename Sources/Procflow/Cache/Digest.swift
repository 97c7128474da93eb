/// A SHA-256 digest: of a file's content, or of what went into a step.
struct Digest: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes, as four big-endian words.
    var words: (UInt64, UInt64, UInt64, UInt64)

    /// The digest whose bytes are those of the four words, big-endian.
    init(_ first: UInt64, _ second: UInt64, _ third: UInt64, _ fourth: UInt64) {
        words = (first, second, third, fourth)
    }

    /// A value no content hashes to in practice: recorded for a file that changed while its
    /// step ran, so that the next check sees a change.
    static let unknown = Digest(0, 0, 0, 0)

    static func == (lhs: Digest, rhs: Digest) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
    }

    /// The digest in lowercase hexadecimal, 64 characters.
    var hex: String {
        var text = ""
        text.reserveCapacity(64)
        for word in [words.0, words.1, words.2, words.3] {
            let digits = String(word, radix: 16)
            text += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return text
    }

    var description: String { hex }

    /// Parses 64 hexadecimal digits; `nil` for anything else.
    init?(hex: some StringProtocol) {
        guard hex.utf8.count == 64 else { return nil }
        var words: [UInt64] = []
        var index = hex.startIndex
        for _ in 0..<4 {
            let end = hex.index(index, offsetBy: 16)
            guard let word = UInt64(hex[index..<end], radix: 16) else { return nil }
            words.append(word)
            index = end
        }
        self.init(words[0], words[1], words[2], words[3])
    }
}

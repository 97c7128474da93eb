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
        // Digit by digit into the string's own buffer: `String(_:radix:)`, generic, cost more
        // the first time than the rest of a state file's name.
        let (first, second, third, fourth) = words
        return String(unsafeUninitializedCapacity: 64) { buffer in
            for (index, word) in [first, second, third, fourth].enumerated() {
                for digit in 0..<16 {
                    let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * digit)) & 0xF
                    buffer[index * 16 + digit] = nibble < 10 ? 0x30 + nibble : 0x57 + nibble
                }
            }
            return 64
        }
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

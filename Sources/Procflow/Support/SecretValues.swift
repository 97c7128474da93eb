#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The values of a run's secrets, and their masking in text as `***`.
///
/// Values are matched as UTF-8 bytes, so a value is masked whatever follows it (a combining
/// mark after its last letter makes a different character, not a different byte sequence). A
/// value that spans lines is also looked for line by line, as output arrives a line at a time.
/// Values shorter than ``minimumLength`` characters are not masked (as in GitHub Actions): they
/// would blank out ordinary words. Masking is done where text is made, before it is escaped for
/// a report or cut to a length, so that no escaped form or cut piece of a value slips through.
public struct SecretValues: Sendable {
    /// The fewest characters a value, or a line of one, must have to be masked.
    public static let minimumLength = 4
    /// What a value is replaced with.
    public static let mask = "***"
    /// No secrets.
    public static let none = SecretValues([])

    /// The UTF-8 of what is masked, longest first, so that a longer text is replaced before a
    /// part of it.
    private let needles: [[UInt8]]

    /// The secrets `values`, with each line of those that span lines, each also in the forms
    /// `forms` make of it (the escaped forms of the writers that text passes through).
    public init(_ values: some Sequence<String>, alsoAs forms: [(String) -> String] = []) {
        var needles: Set<String> = []
        for piece in Self.pieces(of: values) {
            needles.insert(piece)
            for form in forms { needles.insert(form(piece)) }
        }
        // A text of asterisks would match the mask itself.
        self.needles = needles.map { Array($0.utf8) }
            .filter { !$0.isEmpty && $0.contains { $0 != UInt8(ascii: "*") } }
            .sorted {
                $0.count > $1.count || ($0.count == $1.count && $0.lexicographicallyPrecedes($1))
            }
    }

    /// What is masked of `values`: each value, and each line of those that span lines, at
    /// least ``minimumLength`` characters long.
    static func pieces(of values: some Sequence<String>) -> Set<String> {
        var pieces: Set<String> = []
        for value in values {
            for piece in [Substring(value)] + lines(of: value) where piece.count >= minimumLength {
                pieces.insert(String(piece))
            }
        }
        return pieces
    }

    /// The lines of `value` (`\n` or `\r\n` ends).
    static func lines(of value: String) -> [Substring] {
        guard value.containsByte(UInt8(ascii: "\n")) else { return [] }
        // "\r\n" is one Character: split on both.
        return value.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map {
            $0.hasSuffix("\r") ? $0.dropLast() : $0
        }
    }

    /// Whether there is nothing to mask.
    public var isEmpty: Bool { needles.isEmpty }

    /// `text` with every value replaced by ``mask``.
    public func mask<Text: StringProtocol>(_ text: Text) -> String {
        guard !needles.isEmpty else { return String(text) }
        var bytes = Array(text.utf8)
        var changed = false
        for needle in needles where needle.count <= bytes.count {
            guard let first = Self.find(needle, in: bytes, from: 0) else { continue }
            bytes = Self.replacing(needle, in: bytes, from: first)
            changed = true
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : String(text)
    }

    /// Where to cut `bytes` at most `limit` bytes in so that no value is cut in two: `limit`,
    /// or the start of a value (or of what may become one as more bytes come) that crosses it,
    /// when that start is past the beginning.
    func cut(_ bytes: [UInt8], at limit: Int) -> Int {
        var cut = limit
        for needle in needles where needle.count > 1 {
            let earliest = max(1, limit - needle.count + 1)
            var start = limit - 1
            while start >= earliest {
                let available = min(needle.count, bytes.count - start)
                if bytes[start..<start + available].elementsEqual(needle[..<available]) {
                    cut = min(cut, start)
                }
                start -= 1
            }
        }
        return cut
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard start + needle.count <= bytes.count else { return nil }
        return bytes.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { needle in
                let (base, last) = (haystack.baseAddress!, haystack.count - needle.count)
                var position = start
                // memchr to each place the first byte is, memcmp there.
                while position <= last,
                    let hit = memchr(base + position, Int32(needle[0]), last - position + 1)
                {
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, needle.baseAddress!, needle.count) == 0 { return index }
                    position = index + 1
                }
                return nil
            }
        }
    }

    private static func replacing(_ needle: [UInt8], in bytes: [UInt8], from first: Int)
        -> [UInt8]
    {
        var result = Array(bytes[..<first])
        result.reserveCapacity(bytes.count)
        var position = first
        while let found = find(needle, in: bytes, from: position) {
            result.append(contentsOf: bytes[position..<found])
            result.append(contentsOf: mask.utf8)
            position = found + needle.count
        }
        result.append(contentsOf: bytes[position...])
        return result
    }
}

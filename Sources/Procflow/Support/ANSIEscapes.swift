/// The escape sequences commands write to colour their output or move the cursor (ECMA-48):
/// CSI (`ESC [` parameters, intermediates, a final byte), OSC (`ESC ]` … up to BEL or `ESC \`),
/// and the two-byte `ESC` sequences.
enum ANSIEscapes {
    private static let escape = UInt8(0x1B)

    /// The most bytes a sequence is looked for before a cut: a longer one is taken for text.
    static let longestSequence = 4096

    /// `text` without its escape sequences; an unfinished one at the end is dropped too.
    static func stripping<Text: StringProtocol>(_ text: Text) -> String {
        guard text.utf8.contains(escape) else { return String(text) }
        let bytes = Array(text.utf8)
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == escape {
                index = sequenceEnd(in: bytes, from: index) ?? bytes.count
            } else {
                kept.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: kept, as: UTF8.self)
    }

    /// How many bytes of `bytes` to take so that the piece has at most `limit` bytes and ends
    /// neither inside a UTF-8 character nor inside an escape sequence: `limit`, or a little
    /// less.
    static func safeCut<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, limit: Int) -> Int
    where Bytes.Index == Int {
        let start = bytes.startIndex
        guard bytes.count > limit, limit > 0 else { return min(bytes.count, limit) }
        var cut = limit
        // Back off over continuation bytes (10xxxxxx) to the start of a character.
        while cut > 0, bytes[start + cut] & 0xC0 == 0x80 { cut -= 1 }
        if cut == 0 { cut = limit }
        var position = cut - 1
        while position >= max(0, cut - longestSequence) {
            if bytes[start + position] == escape {
                let piece = bytes[start..<(start + cut)]
                if sequenceEnd(in: piece, from: start + position) != nil { return cut }
                // The sequence goes on past the cut: cut before it, unless nothing is left.
                return position > 0 ? position : cut
            }
            position -= 1
        }
        return cut
    }

    /// The index just past the escape sequence that starts at `start`; `nil` if it does not
    /// end within `bytes`.
    private static func sequenceEnd<Bytes: RandomAccessCollection<UInt8>>(
        in bytes: Bytes, from start: Int
    ) -> Int? where Bytes.Index == Int {
        var index = start + 1
        guard index < bytes.endIndex else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "["):
            index += 1
            while index < bytes.endIndex {
                let byte = bytes[index]
                if (0x40...0x7E).contains(byte) { return index + 1 }
                // Not a CSI byte: the sequence was malformed; it ends here.
                guard (0x20...0x3F).contains(byte) else { return index }
                index += 1
            }
            return nil
        case UInt8(ascii: "]"), UInt8(ascii: "P"), UInt8(ascii: "_"), UInt8(ascii: "^"):
            // A string, up to BEL or ST (`ESC \`).
            index += 1
            while index < bytes.endIndex {
                if bytes[index] == 0x07 { return index + 1 }
                if bytes[index] == escape {
                    guard index + 1 < bytes.endIndex else { return nil }
                    return bytes[index + 1] == UInt8(ascii: "\\") ? index + 2 : index
                }
                index += 1
            }
            return nil
        default:
            while index < bytes.endIndex, (0x20...0x2F).contains(bytes[index]) { index += 1 }
            guard index < bytes.endIndex else { return nil }
            return index + 1
        }
    }
}

/// The bytes of a source file, with a line index to turn byte offsets into locations.
///
/// Columns count Unicode scalars. Finding one costs at most ``blockSize`` bytes of counting,
/// however long its line: files with long lines also keep, for every block of that size, how
/// many scalars start before it, so that a hundred thousand diagnostics on one huge line stay
/// linear.
struct SourceText {
    static let blockSize = 256

    let bytes: [UInt8]
    /// The byte offset at which each line starts.
    private let lineStarts: [Int]
    /// For each block of ``blockSize`` bytes, how many scalars start before it; empty when no
    /// line is longer than a block.
    private let scalarsBeforeBlock: [Int]

    init(bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        var longest = 0
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            longest = max(longest, offset - starts[starts.count - 1])
            starts.append(offset + 1)
        }
        longest = max(longest, bytes.count - starts[starts.count - 1])
        lineStarts = starts
        scalarsBeforeBlock = longest > Self.blockSize ? Self.countScalarsPerBlock(bytes) : []
    }

    private static func countScalarsPerBlock(_ bytes: [UInt8]) -> [Int] {
        var counts = [0]
        var total = 0
        for (offset, byte) in bytes.enumerated() {
            if byte & 0xC0 != 0x80 { total += 1 }
            if (offset + 1) % blockSize == 0 { counts.append(total) }
        }
        return counts
    }

    /// The bytes of line `number` (from 1), without its line break; `nil` past the end.
    func line(_ number: Int) -> ArraySlice<UInt8>? {
        guard number >= 1, number <= lineStarts.count else { return nil }
        let start = lineStarts[number - 1]
        let end = number < lineStarts.count ? lineStarts[number] - 1 : bytes.count
        return bytes[start..<max(start, end)]
    }

    /// The location of the byte at `offset`; columns count Unicode scalars, not bytes.
    func location(ofOffset offset: Int) -> SourceLocation {
        let offset = min(max(0, offset), bytes.count)
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        let lineStart = lineStarts[low]
        let column =
            scalarsBeforeBlock.isEmpty
            ? scalars(from: lineStart, to: offset)
            : scalarsBefore(offset) - scalarsBefore(lineStart)
        return SourceLocation(line: low + 1, column: column + 1)
    }

    /// How many scalars start before `offset`, from the block it is in.
    private func scalarsBefore(_ offset: Int) -> Int {
        let block = offset / Self.blockSize
        return scalarsBeforeBlock[block] + scalars(from: block * Self.blockSize, to: offset)
    }

    /// How many scalars start in `start..<end`: the bytes that are not UTF-8 continuations.
    private func scalars(from start: Int, to end: Int) -> Int {
        var count = 0
        for index in start..<end where bytes[index] & 0xC0 != 0x80 { count += 1 }
        return count
    }
}

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

    /// A part of line `number` (from 1) around `column`: at most `radius` bytes either side
    /// of it, cut at scalar boundaries, without the line break; with the column within the
    /// part, and whether the line goes on before and after it. Found in time that does not
    /// grow with the line's length (but for a line of more than a block, logarithmically), so
    /// that a hundred diagnostics on one huge line stay quick. `nil` past the end.
    func excerpt(line number: Int, column: Int, radius: Int) -> (
        bytes: ArraySlice<UInt8>, column: Int, cutBefore: Bool, cutAfter: Bool
    )? {
        guard number >= 1, number <= lineStarts.count else { return nil }
        let start = lineStarts[number - 1]
        let end = max(start, number < lineStarts.count ? lineStarts[number] - 1 : bytes.count)
        // The byte where the column's scalar starts.
        var offset: Int
        if scalarsBeforeBlock.isEmpty {
            offset = start
            var seen = 0
            while offset < end, seen < column - 1 {
                offset += 1
                while offset < end, bytes[offset] & 0xC0 == 0x80 { offset += 1 }
                seen += 1
            }
        } else {
            var low = start
            var high = end
            let base = scalarsBefore(start)
            while low < high {
                let middle = (low + high) / 2
                if scalarsBefore(middle) - base < column - 1 {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            offset = low
        }
        var first = max(start, offset - radius)
        while first > start, bytes[first] & 0xC0 == 0x80 { first -= 1 }
        var last = min(end, offset + radius)
        while last < end, bytes[last] & 0xC0 == 0x80 { last += 1 }
        return (
            bytes[first..<last], scalars(from: first, to: offset) + 1, first > start, last < end
        )
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

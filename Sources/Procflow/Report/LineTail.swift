import ProcedureKit

/// Something whose size in bytes counts against a limit.
protocol MeasuredLine {
    /// Its size, in bytes.
    var byteCount: Int { get }
}

extension String: MeasuredLine {
    var byteCount: Int { utf8.count }
}

/// The last lines of some output, within a byte limit: past it, the oldest are dropped and
/// counted.
struct LineTail<Line: MeasuredLine> {
    /// The most bytes kept.
    let limit: Int
    private(set) var lines = RingBuffer<Line>()
    /// The bytes of the lines kept.
    private(set) var bytes = 0
    /// How many lines were dropped.
    private(set) var dropped = 0

    init(limit: Int) {
        self.limit = limit
    }

    mutating func append(_ line: Line) {
        lines.append(line)
        bytes += line.byteCount
        while bytes > limit, let oldest = lines.popFirst() {
            bytes -= oldest.byteCount
            dropped += 1
        }
    }

    /// Drops every line kept, counting them as dropped.
    mutating func removeAll() {
        dropped += lines.count
        lines = RingBuffer()
        bytes = 0
    }
}

/// A step's output as the file reports keep it: its first lines and its last, each within a
/// byte limit, escape sequences removed, and how much it printed in all.
struct StepLog {
    /// One line, and the stream it came on.
    struct Line: MeasuredLine {
        let stream: ShellProcedure.Stream
        let text: String
        var byteCount: Int { text.utf8.count + 1 }
    }

    /// The most bytes kept of the first lines.
    static let headLimit = 16 << 10
    /// The most bytes kept of the last lines.
    static let tailLimit = 48 << 10

    /// The first lines.
    private(set) var head: [Line] = []
    private var headBytes = 0
    /// The last lines after the first, within ``tailLimit``.
    private(set) var tail = LineTail<Line>(limit: tailLimit)
    /// Lines printed on stdout and stderr.
    private(set) var lineCounts: [ShellProcedure.Stream: Int] = [:]
    /// Bytes printed on stdout and stderr, a newline counted for each line.
    private(set) var byteCounts: [ShellProcedure.Stream: Int] = [:]
    /// Whether the lines were let go to keep the run's reports within their budget.
    private(set) var isDiscarded = false

    /// How many lines are not kept, between the first and the last.
    var omitted: Int { tail.dropped }

    /// The bytes kept.
    var keptBytes: Int { headBytes + tail.bytes }

    /// Every line kept, in order; `omitted` lines lie between the first ones and the rest.
    var keptLines: (head: [Line], tail: [Line]) { (head, Array(tail.lines)) }

    /// The last `count` lines kept.
    func lastLines(_ count: Int) -> [Line] {
        let kept = head + Array(tail.lines)
        return Array(kept.suffix(count))
    }

    mutating func append(_ stream: ShellProcedure.Stream, _ lines: [Substring]) {
        for raw in lines {
            lineCounts[stream, default: 0] += 1
            byteCounts[stream, default: 0] += raw.utf8.count + 1
            guard !isDiscarded else { continue }
            let line = Line(stream: stream, text: ANSIEscapes.stripping(raw))
            if tail.lines.isEmpty, tail.dropped == 0, headBytes + line.byteCount <= Self.headLimit {
                head.append(line)
                headBytes += line.byteCount
            } else {
                tail.append(line)
            }
        }
    }

    /// Lets go of the lines kept (the counts stay).
    mutating func discard() {
        isDiscarded = true
        tail.removeAll()
        head = []
        headBytes = 0
    }
}

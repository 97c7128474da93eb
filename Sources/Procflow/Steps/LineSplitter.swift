/// Cuts a stream of bytes into lines as chunks arrive.
///
/// A line longer than ``maximumLineLength`` bytes is cut into pieces of at most that length,
/// so a stream without newlines never grows the buffer; a cut never falls inside a UTF-8
/// character or an escape sequence, nor inside one of `secrets` (so that the masking of a
/// line sees the whole value). A trailing `\r` is dropped.
struct LineSplitter {
    static let maximumLineLength = 64 * 1024

    private var partial: [UInt8] = []
    private let secrets: SecretValues

    /// A splitter that cuts no value of `secrets` in two.
    init(secrets: SecretValues = .none) {
        self.secrets = secrets
    }

    /// The lines `bytes` completes.
    mutating func lines(in bytes: UnsafeRawBufferPointer) -> [Substring] {
        var text: [UInt8] = []
        var boundaries: [Int] = []
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            text.append(contentsOf: partial)
            partial.removeAll(keepingCapacity: true)
            text.append(contentsOf: bytes[start..<index])
            boundaries.append(text.count)
            start = index + 1
        }
        partial.append(contentsOf: bytes[start...])
        // Cut only with a byte past the piece in hand, so that the cut sees what follows it.
        while partial.count > Self.maximumLineLength {
            var cut = ANSIEscapes.safeCut(partial, limit: Self.maximumLineLength)
            if !secrets.isEmpty { cut = secrets.cut(partial, at: cut) }
            text.append(contentsOf: partial[0..<cut])
            boundaries.append(text.count)
            partial.removeFirst(cut)
        }
        return Self.split(text, at: boundaries)
    }

    /// The unfinished last line, if any, once the stream has ended.
    mutating func finish() -> [Substring] {
        guard !partial.isEmpty else { return [] }
        defer { partial = [] }
        return Self.split(partial, at: [partial.count])
    }

    /// Decodes `text` once and cuts it at the byte `boundaries` (each the end of a line).
    private static func split(_ text: [UInt8], at boundaries: [Int]) -> [Substring] {
        var lines: [Substring] = []
        lines.reserveCapacity(boundaries.count)
        var start = 0
        for end in boundaries {
            var line = Substring(decoding: text[start..<end], as: UTF8.self)
            if line.hasSuffix("\r") { line = line.dropLast() }
            lines.append(line)
            start = end
        }
        return lines
    }
}

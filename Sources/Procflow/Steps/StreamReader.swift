import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Drains one pipe as data arrives, cutting it into lines.
///
/// Used only on the queue it is given. A line longer than ``maximumLineLength`` bytes is cut
/// into pieces of that length, so a stream without newlines never grows a buffer.
final class StreamReader {
    /// What one read brought: the raw bytes, and the lines it completed.
    struct Chunk {
        let bytes: ArraySlice<UInt8>
        let lines: [Substring]
    }

    static let maximumLineLength = 64 * 1024

    let stream: ShellProcedure.Stream
    private let descriptor: Int32
    private let onChunk: (Chunk) -> Void
    private let onEnd: () -> Void
    private var source: DispatchSourceRead?
    private var partial: [UInt8] = []
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private(set) var isFinished = false

    init(
        stream: ShellProcedure.Stream, descriptor: Int32, queue: DispatchQueue,
        onChunk: @escaping (Chunk) -> Void, onEnd: @escaping () -> Void
    ) {
        self.stream = stream
        self.descriptor = descriptor
        self.onChunk = onChunk
        self.onEnd = onEnd
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [unowned self] in readAvailable() }
        source.setCancelHandler { close(descriptor) }
        self.source = source
        source.resume()
    }

    /// Takes what can be read now and stops reading: for pipes held open by processes that
    /// outlive the command.
    func stop() {
        guard !isFinished else { return }
        readAvailable()
        end()
    }

    private func readAvailable() {
        while !isFinished {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                deliver(buffer[0..<count])
            } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                end()
            } else if errno == EAGAIN {
                return
            }
        }
    }

    private func deliver(_ bytes: ArraySlice<UInt8>) {
        var lines: [Substring] = []
        var start = bytes.startIndex
        var text: [UInt8] = []
        var boundaries: [Int] = []
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            text.append(contentsOf: partial)
            partial.removeAll(keepingCapacity: true)
            text.append(contentsOf: bytes[start..<index])
            boundaries.append(text.count)
            start = index + 1
        }
        partial.append(contentsOf: bytes[start...])
        while partial.count >= Self.maximumLineLength {
            text.append(contentsOf: partial[0..<Self.maximumLineLength])
            boundaries.append(text.count)
            partial.removeFirst(Self.maximumLineLength)
        }
        if !boundaries.isEmpty {
            lines = split(text, at: boundaries)
        }
        onChunk(Chunk(bytes: bytes, lines: lines))
    }

    /// Decodes `text` once and cuts it at the byte `boundaries` (each the end of a line).
    private func split(_ text: [UInt8], at boundaries: [Int]) -> [Substring] {
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

    private func end() {
        guard !isFinished else { return }
        isFinished = true
        if !partial.isEmpty {
            let line = Substring(decoding: partial, as: UTF8.self)
            partial = []
            onChunk(Chunk(bytes: [], lines: [line]))
        }
        source?.cancel()
        source = nil
        onEnd()
    }
}

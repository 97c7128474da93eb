import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Follows a file a job writes its stdout or stderr to, as `tail -f` does: what was added
/// since the last look, cut into lines.
struct OutputFollower {
    let path: String
    private var offset: off_t = 0
    private var splitter: LineSplitter

    /// A follower of the file at `path`, cutting no value of `secrets` in two.
    init(path: String, secrets: SecretValues = .none) {
        self.path = path
        splitter = LineSplitter(secrets: secrets)
    }

    /// The complete lines added since the last call, reading at most `limit` bytes, and the
    /// bytes read (for a captured stdout). A file not there yet has added nothing.
    mutating func read(limit: Int = 4 << 20) -> (lines: [Substring], bytes: [UInt8]) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return ([], []) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < limit {
            let count = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress, raw.count, offset)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            offset += off_t(count)
            bytes.append(contentsOf: buffer[0..<count])
        }
        let lines = bytes.withUnsafeBytes { splitter.lines(in: $0) }
        return (lines, bytes)
    }

    /// The unfinished last line, once the job is over.
    mutating func finish() -> [Substring] {
        splitter.finish()
    }
}

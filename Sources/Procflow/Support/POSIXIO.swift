#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading and writing whole files and descriptors with POSIX calls, so that a failure says
/// what `errno` said: the one read loop and the one write loop of procflow.
enum POSIXIO {
    /// Why a read or a write failed: `strerror` of its `errno`, or "cancelled".
    struct Failure: Error, Equatable {
        let message: String
        /// The `errno` behind it, if one is.
        var code: Int32 = 0

        /// The failure `errno` describes now.
        static var current: Failure {
            Failure(message: String(cString: strerror(errno)), code: errno)
        }
    }

    /// The most bytes one write(2) is given, so that a cancellation is noticed between chunks.
    static let chunkSize = 1 << 20

    /// Reads a whole file.
    static func readFile(_ path: String) -> Result<[UInt8], Failure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.current) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(.current) }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            return .failure(Failure(message: "it is a directory"))
        }
        return read(descriptor, expected: Int(status.st_size), limit: Int.max - 1)
    }

    /// Reads `descriptor` to its end, or to one byte past `limit`, whichever comes first;
    /// `expected` bytes (the size `fstat` gave) and one more are read straight into the
    /// array: a file of the size expected is read without a buffer between (a zero-filled
    /// 64 KiB chunk was most of the page faults of reading a small file), and the byte
    /// more shows its end, or that it grew, in which case the rest is read by chunks.
    static func read(_ descriptor: Int32, expected: Int, limit: Int) -> Result<[UInt8], Failure> {
        let capacity = min(max(expected, 0), limit) + 1
        var failure: Failure?
        var bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            while count < capacity {
                let got = Glibc.read(descriptor, buffer.baseAddress! + count, capacity - count)
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = .current
                    return
                }
                if got == 0 { return }
                count += got
            }
        }
        if let failure { return .failure(failure) }
        guard bytes.count == capacity else { return .success(bytes) }  // the end
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count <= limit {
            let wanted = min(chunk.count, limit + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes {
                Glibc.read(descriptor, $0.baseAddress, wanted)
            }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.current)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return .success(bytes)
    }

    /// Writes all of `buffer` to `descriptor` (from its byte `position` on, with pwrite(2),
    /// where one is given), retrying short and interrupted writes, and stopping at the first
    /// error (a reader that has gone away, most often) or when `isCancelled` turns true between
    /// two chunks.
    ///
    /// - Throws: the ``Failure`` that stopped it.
    static func write(
        _ buffer: UnsafeRawBufferPointer, to descriptor: Int32, at position: Int? = nil,
        isCancelled: () -> Bool = { false }
    ) throws(Failure) {
        var offset = 0
        while offset < buffer.count {
            if isCancelled() { throw Failure(message: "cancelled") }
            let length = min(buffer.count - offset, chunkSize)
            let start = buffer.baseAddress! + offset
            let written =
                position.map { pwrite(descriptor, start, length, off_t($0 + offset)) }
                ?? Glibc.write(descriptor, start, length)
            if written < 0 {
                if errno == EINTR { continue }
                throw .current
            }
            offset += written
        }
    }

    /// `count` bytes of `descriptor` from its byte `position` (pread(2)), fewer where it ends
    /// before them.
    static func read(_ descriptor: Int32, count: Int, at position: Int) -> Result<[UInt8], Failure>
    {
        var failure: Failure?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            while initialized < count {
                let got = pread(
                    descriptor, buffer.baseAddress! + initialized, count - initialized,
                    off_t(position + initialized))
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = .current
                    return
                }
                if got == 0 { return }
                initialized += got
            }
        }
        return failure.map { .failure($0) } ?? .success(bytes)
    }

    /// Writes all of `text` to `descriptor`. A reader that has gone away (`procflow run … |
    /// head`) is not an error: what it would not read is dropped, and the run goes on.
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { try? write(UnsafeRawBufferPointer($0), to: descriptor) }
    }
}

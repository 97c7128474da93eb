#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension POSIXIO {
    /// Why ``readRegularFile(_:limit:)`` gave no bytes.
    enum RegularFileProblem: Error, Equatable {
        /// Opening or reading failed.
        case unreadable(Failure)
        /// It is not a regular file: "a FIFO", "a character device", "a directory", ….
        case notRegular(String)
        /// It holds more than the limit: its size, or `nil` when it grew past the limit while
        /// it was read.
        case tooLarge(Int?)
    }

    /// Reads a whole regular file of at most `limit` bytes.
    ///
    /// The file is opened without blocking, so that a FIFO without a writer does not hang the
    /// open, and its type and size come from `fstat` on that descriptor, so that nothing can
    /// be swapped in between the check and the read. The read stops one byte past `limit`:
    /// a device such as `/dev/zero`, or a file still growing, never fills memory.
    static func readRegularFile(_ path: String, limit: Int) -> Result<[UInt8], RegularFileProblem> {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.unreadable(.current)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(.unreadable(.current)) }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else { return .failure(.notRegular(describe(type))) }
        guard status.st_size <= limit else { return .failure(.tooLarge(Int(status.st_size))) }
        switch read(descriptor, expected: Int(status.st_size), limit: limit) {
        case .failure(let failure): return .failure(.unreadable(failure))
        case .success(let bytes) where bytes.count > limit: return .failure(.tooLarge(nil))
        case .success(let bytes): return .success(bytes)
        }
    }

    /// "a FIFO", "a directory", …: what a file of `type` (`st_mode & S_IFMT`) is.
    private static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFDIR: return "a directory"
        case S_IFSOCK: return "a socket"
        default: return "not a file procflow reads"
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension POSIXIO {
    /// Creates `path` and its missing parents, each with `mode`; true if it is there now.
    static func makeDirectories(_ path: String, mode: mode_t = 0o755) -> Bool {
        if mkdir(path, mode) == 0 || errno == EEXIST { return true }
        guard errno == ENOENT, let slash = path.lastIndex(of: "/"), slash != path.startIndex
        else { return false }
        return makeDirectories(String(path[..<slash]), mode: mode)
            && (mkdir(path, mode) == 0 || errno == EEXIST)
    }

    /// Writes `bytes` to a new temporary file, then renames it over `path`: whoever reads
    /// `path` sees the old file or the new one, whole. The temporary file is made beside `path`,
    /// or in `temporaryDirectory`, on the same file system, with `mode`; `path`'s directory is
    /// made if missing (with `directoryMode`). With `sync`, the data is on disk before the
    /// rename.
    ///
    /// - Throws: a ``Failure`` whose message names `path` and the reason; the temporary file
    ///   is removed, and `path` is untouched.
    static func writeAtomically(
        _ bytes: [UInt8], to path: String, mode: mode_t = 0o644, directoryMode: mode_t = 0o755,
        temporaryDirectory: String? = nil, sync: Bool = true, isCancelled: () -> Bool = { false }
    ) throws(Failure) {
        try writeAtomically(
            to: path, mode: mode, directoryMode: directoryMode,
            temporaryDirectory: temporaryDirectory, sync: sync
        ) { descriptor throws(Failure) in
            var failure: Failure?
            bytes.withUnsafeBytes { buffer in
                do throws(Failure) {
                    try write(buffer, to: descriptor, isCancelled: isCancelled)
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
    }

    /// As ``writeAtomically(_:to:mode:directoryMode:temporaryDirectory:sync:isCancelled:)``,
    /// with the content written by `content` to the temporary file's descriptor, in as many
    /// writes as it likes: a large file need not be held whole in memory.
    static func writeAtomically(
        to path: String, mode: mode_t = 0o644, directoryMode: mode_t = 0o755,
        temporaryDirectory: String? = nil, sync: Bool = true,
        content: (Int32) throws(Failure) -> Void
    ) throws(Failure) {
        let folder = directory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        for needed in [folder] + (temporaryDirectory.map { [$0] } ?? [])
        where !makeDirectories(needed, mode: directoryMode) {
            throw Failure(
                message: "cannot create the directory \(needed): \(Failure.current.message)")
        }
        let random = UInt64.random(in: 0...UInt64.max)
        let temporary =
            temporaryDirectory.map { "\($0)/\(getpid())-\(random)" }
            ?? "\(folder)/.\(name).procflow-\(random)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw Failure(message: "cannot write \(path): \(Failure.current.message)")
        }
        var failure: String?
        do {
            try content(descriptor)
        } catch {
            failure = error.message
        }
        if failure == nil, sync, fsync(descriptor) != 0 { failure = Failure.current.message }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = Failure.current.message }
        if let failure {
            unlink(temporary)
            throw Failure(message: "cannot write \(path): \(failure)")
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An exclusive lock on a workflow's index while a run merges its findings into it, so that
/// two runs finishing at once both keep theirs. Where the file system cannot lock (`flock`
/// fails), the merge goes ahead unlocked: the index is still written whole, and at worst one
/// run's findings are lost and its steps run again next time.
struct IndexLock {
    private let descriptor: Int32

    /// Takes the lock of `path`, waiting for another run to release it.
    init(path: String) {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, StateDirectory.fileMode)
        guard descriptor >= 0 else { return }
        while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
    }

    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

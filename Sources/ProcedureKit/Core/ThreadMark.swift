#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mark on the current thread naming the object it is working for, innermost first: which
/// procedure's events it handles (``CurrentProcedure``), which queue it runs a worker of
/// (``QueueWorker``). One thread-specific key per mark; the object is not retained.
struct ThreadMark: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    /// Whether the current thread's innermost mark is `object`.
    func isMarked(for object: AnyObject) -> Bool {
        let current: UnsafeMutableRawPointer? = pthread_getspecific(key)
        return current == Unmanaged.passUnretained(object).toOpaque()
    }

    /// Runs `body` with the current thread marked for `object`, then puts back the mark it had.
    func marking<R>(_ object: AnyObject, _ body: () throws -> R) rethrows -> R {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(object).toOpaque())
        defer { pthread_setspecific(key, outer) }
        return try body()
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which queue's worker, running on that queue's `underlyingQueue`, the current thread is.
///
/// A procedure's start is an event, handled by whichever thread handles its events at that
/// moment; for a queue with an underlying dispatch queue, that thread must be one of the
/// queue's workers there, or the start is sent to the underlying queue.
enum QueueWorker {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Whether the current thread is running a worker of `queue` on its underlying queue.
    static func isRunning(for queue: ProcedureQueue) -> Bool {
        let current: UnsafeMutableRawPointer? = pthread_getspecific(key)
        return current == Unmanaged.passUnretained(queue).toOpaque()
    }

    /// Runs `body` as a worker of `queue`, on its underlying queue.
    static func running<R>(for queue: ProcedureQueue, _ body: () throws -> R) rethrows -> R {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(queue).toOpaque())
        defer { pthread_setspecific(key, outer) }
        return try body()
    }
}

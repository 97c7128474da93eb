#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The procedure whose events the current thread is handling, innermost first.
///
/// A procedure's callbacks run on the thread handling its events, so a call made from one of
/// them can act at once, in turn with the others, where a call from elsewhere has to queue:
/// `produce(operation:before:)` relies on telling the two apart.
enum CurrentProcedure {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Whether the current thread is handling `procedure`'s events, and no other's inside them.
    static func isHandling(_ procedure: Procedure) -> Bool {
        let current: UnsafeMutableRawPointer? = pthread_getspecific(key)
        return current == Unmanaged.passUnretained(procedure).toOpaque()
    }

    /// Runs `body`, which handles `procedure`'s events.
    static func handling<R>(_ procedure: Procedure, _ body: () throws -> R) rethrows -> R {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(procedure).toOpaque())
        defer { pthread_setspecific(key, outer) }
        return try body()
    }
}

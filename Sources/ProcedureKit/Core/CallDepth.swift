#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How deeply the current thread is nested in procedure event handling.
///
/// Handling one procedure's event can finish another procedure inline (a group finishes when
/// its last child does, a cancelled group cancels its children), so event handling can nest as
/// deep as the graph. Past ``limit`` levels, new work is sent to a fresh thread instead of
/// nesting, so stack use stays bounded however deep groups nest.
enum CallDepth {
    static let limit = 24

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The current thread's nesting level.
    static var current: Int {
        Int(bitPattern: pthread_getspecific(key))
    }

    /// Whether work started now may run inline rather than on another thread.
    static var allowsNesting: Bool { current < limit }

    /// Runs `body` one level deeper.
    static func nested<R>(_ body: () throws -> R) rethrows -> R {
        let depth = current
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: depth + 1))
        defer { pthread_setspecific(key, UnsafeRawPointer(bitPattern: depth)) }
        return try body()
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a mutex: the library's `Mutex<Value>`.
///
/// `Synchronization.Mutex` would do, but on Linux it locks with futexes inside an
/// uninstrumented library, so ThreadSanitizer cannot see its locking and reports a race on
/// everything it guards. A pthread mutex is something ThreadSanitizer understands, and costs
/// the same. Value and mutex share one allocation.
public struct Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: the value is only reached through `withLock`, under the mutex.

    // The buffer class itself, not a subclass with a `deinit` that destroys the mutex: each
    // `Value` makes a new class at run time, and a subclass's was made by demangling its
    // superclass's name (14 k instructions at each type's first use, 33 types in a one-step
    // run). The value is the header, destroyed with the buffer. The mutex is not destroyed,
    // which loses nothing: destroying a default pthread mutex releases no resources (glibc,
    // musl, Darwin), and ThreadSanitizer forgets a mutex whose memory is freed.
    //
    // Inlinable, so that a client's use is specialized for its value rather than generic:
    // a value taken out is then copied directly, not through its type's witness table.
    @usableFromInline let storage: ManagedBuffer<Value, pthread_mutex_t>

    /// Creates a mutex guarding `value`.
    public init(_ value: Value) {
        storage = .create(minimumCapacity: 1) { _ in value }
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
    }

    /// Runs `body` with the value, holding the mutex.
    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

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

    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    private let storage: Storage

    /// Creates a mutex guarding `value`.
    public init(_ value: Value) {
        let buffer = Storage.create(minimumCapacity: 1) { _ in value }
        storage = unsafeDowncast(buffer, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
    }

    /// Runs `body` with the value, holding the mutex.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

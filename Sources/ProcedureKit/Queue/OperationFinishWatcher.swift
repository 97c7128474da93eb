import Foundation

/// Calls back once when a plain Foundation `Operation` finishes.
///
/// swift-corelibs-foundation has no key-value observing. What it does have is the dependency
/// bookkeeping behind `Operation.addDependency(_:)`: when an operation finishes, each operation
/// that depends on it has its `isReady` re-read. The watcher depends on the watched operation
/// and treats the first `isReady == true` as "the watched operation finished".
///
/// The watched operation keeps an unretained pointer to the watcher until it finishes, so the
/// watcher keeps itself alive until then.
final class OperationFinishWatcher: Operation, @unchecked Sendable {
    // @unchecked Sendable: `pending` is the only mutable state and a `Locked` mutex guards it.
    private let pending: Locked<(@Sendable () -> Void)?>
    private let keepAlive = Locked<Unmanaged<OperationFinishWatcher>?>(nil)

    /// Calls `onFinish` once `operation` has finished (at once if it already has).
    @discardableResult
    static func watch(
        _ operation: Operation, onFinish: @escaping @Sendable () -> Void
    ) -> OperationFinishWatcher {
        OperationFinishWatcher(operation, onFinish: onFinish)
    }

    private init(_ operation: Operation, onFinish: @escaping @Sendable () -> Void) {
        pending = Locked(onFinish)
        super.init()
        keepAlive.withLock { $0 = Unmanaged.passRetained(self) }
        super.addDependency(operation)
    }

    override var isReady: Bool {
        let ready = super.isReady
        if ready, let onFinish = pending.withLock({ $0.take() }) {
            onFinish()
            keepAlive.withLock { $0.take() }?.release()
        }
        return ready
    }
}

import Foundation
import Synchronization

/// Calls back once every one of some operations has finished.
final class FinishCountdown: DependencyWaiter {
    private let remaining: Atomic<Int>
    private let onFinish: @Sendable () -> Void

    private init(count: Int, onFinish: @escaping @Sendable () -> Void) {
        remaining = Atomic(count)
        self.onFinish = onFinish
    }

    /// Calls `onFinish` once every one of `operations` has finished (at once if they have).
    static func wait(for operations: [Operation], then onFinish: @escaping @Sendable () -> Void) {
        // One extra count, so that it cannot reach zero before every wait is registered.
        let countdown = FinishCountdown(count: operations.count + 1, onFinish: onFinish)
        for operation in operations {
            if let procedure = operation as? Procedure {
                if !procedure.addWaiter(countdown) { countdown.dependencyDidFinish() }
            } else {
                OperationFinishWatcher.watch(operation) { countdown.dependencyDidFinish() }
            }
        }
        countdown.dependencyDidFinish()
    }

    func dependencyDidFinish() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { onFinish() }
    }
}

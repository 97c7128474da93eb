import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plain Foundation `Operation` (not a ``Procedure``) added to a ``ProcedureQueue``: waits
/// for its dependencies, then starts it and reports when it finishes.
final class QueuedOperation: DependencyWaiter, Sendable {
    let operation: Operation
    private let queue: ProcedureQueue
    /// The index of its entry among the queue's members.
    private let member: Int
    private let unresolvedDependencies = Atomic<Int>(0)

    init(_ operation: Operation, queue: ProcedureQueue, member: Int) {
        self.operation = operation
        self.queue = queue
        self.member = member
    }

    /// Starts waiting for the operation's dependencies.
    ///
    /// - Returns: true if it has none, so it is ready now; otherwise it puts itself in the
    ///   queue's ready list once they have finished.
    func waitForDependencies() -> Bool {
        let dependencies = operation.dependencies
        guard !dependencies.isEmpty else { return true }
        // One extra count guards against reaching zero before every wait is registered.
        unresolvedDependencies.store(dependencies.count + 1, ordering: .relaxed)
        for dependency in dependencies {
            if let procedure = dependency as? Procedure {
                if !procedure.addWaiter(self) { dependencyDidFinish() }
            } else {
                OperationFinishWatcher.watch(dependency) { [self] in dependencyDidFinish() }
            }
        }
        dependencyDidFinish()
        return false
    }

    func dependencyDidFinish() {
        if unresolvedDependencies.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            queue.enqueueReady(.operation(self))
        }
    }

    /// Starts the operation in the slot the queue gave it.
    func start() {
        // Every dependency has finished, but when the last one was a plain operation,
        // Foundation may lower this operation's own count of unfinished dependencies a moment
        // after it told us, on the thread that finished it; `start()` traps until it has.
        var attempts = 0
        while !operation.isReady {
            attempts += 1
            if attempts < 100 { sched_yield() } else { usleep(1000) }
        }
        if operation.isAsynchronous {
            OperationFinishWatcher.watch(operation) { [self] in finished() }
            operation.start()
        } else {
            operation.start()
            finished()
        }
    }

    private func finished() {
        queue.operationDidFinish(operation, member: member, releasingSlot: true)
    }
}

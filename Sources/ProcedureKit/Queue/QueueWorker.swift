/// Which queue's worker, running on that queue's `underlyingQueue`, the current thread is.
///
/// A procedure's start is an event, handled by whichever thread handles its events at that
/// moment; for a queue with an underlying dispatch queue, that thread must be one of the
/// queue's workers there, or the start is sent to the underlying queue.
enum QueueWorker {
    private static let mark = ThreadMark()

    /// Whether the current thread is running a worker of `queue` on its underlying queue.
    static func isRunning(for queue: ProcedureQueue) -> Bool {
        mark.isMarked(for: queue)
    }

    /// Runs `body` as a worker of `queue`, on its underlying queue.
    static func running<R>(for queue: ProcedureQueue, _ body: () throws -> R) rethrows -> R {
        try mark.marking(queue, body)
    }
}

import Foundation

/// Hears about every operation of a ``ProcedureQueue``: as it is added and as it finishes.
///
/// Set it as a queue's ``ProcedureQueue/delegate`` to watch a whole queue rather than attach
/// an observer to each procedure. For each operation, will-add comes before did-add, and
/// will-finish (procedures only) before did-finish; beyond that, callbacks for different
/// operations, and did-add and the finishing callbacks of one operation, may run concurrently,
/// on any thread. Every method has an empty default.
public protocol ProcedureQueueDelegate: AnyObject, Sendable {
    /// `queue` is about to add `operation`.
    func procedureQueue(_ queue: ProcedureQueue, willAddOperation operation: Operation)

    /// `queue` has added `operation`, which may already be running.
    func procedureQueue(_ queue: ProcedureQueue, didAddOperation operation: Operation)

    /// `procedure`, in `queue`, is about to finish with `error` if it failed: its will-finish
    /// observers have run, its did-finish observers have not.
    func procedureQueue(
        _ queue: ProcedureQueue, willFinishProcedure procedure: Procedure, with error: (any Error)?)

    /// `operation` has finished and left `queue`, with `error` if it is a procedure that
    /// failed.
    func procedureQueue(
        _ queue: ProcedureQueue, didFinishOperation operation: Operation, with error: (any Error)?)
}

extension ProcedureQueueDelegate {
    /// Does nothing.
    public func procedureQueue(_ queue: ProcedureQueue, willAddOperation operation: Operation) {}

    /// Does nothing.
    public func procedureQueue(_ queue: ProcedureQueue, didAddOperation operation: Operation) {}

    /// Does nothing.
    public func procedureQueue(
        _ queue: ProcedureQueue, willFinishProcedure procedure: Procedure, with error: (any Error)?
    ) {}

    /// Does nothing.
    public func procedureQueue(
        _ queue: ProcedureQueue, didFinishOperation operation: Operation, with error: (any Error)?
    ) {}
}

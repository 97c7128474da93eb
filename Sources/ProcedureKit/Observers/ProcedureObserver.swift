import Foundation

/// Hears about the events of the procedures it is attached to.
///
/// One procedure's callbacks run one at a time, in the order the observers were attached,
/// never concurrently with its `execute()`. Every method has an empty default.
///
/// Will-execute and will-finish come in two forms: implement the one with a pending event to
/// be able to hold the event back (see ``PendingEvent``), the other if you need not. The
/// procedure calls the first, whose default calls the second.
public protocol ProcedureObserver: Sendable {
    /// The observer was attached to `procedure`.
    func didAttach(to procedure: Procedure)

    /// `procedure` is about to execute.
    func will(execute procedure: Procedure)

    /// `procedure` is about to execute; it does not until `pendingExecute` has gone.
    ///
    /// - Parameters:
    ///   - procedure: the procedure about to execute.
    ///   - pendingExecute: keep it to hold the execute back, for work to do before it, such as
    ///     ``Procedure/produce(operation:before:)``.
    func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent)

    /// `procedure`'s `execute()` has returned (the procedure may still be running).
    func did(execute procedure: Procedure)

    /// `procedure` was cancelled, with `error` as the reason if one was given.
    func did(cancel procedure: Procedure, with error: (any Error)?)

    /// `procedure` is about to add `newOperation` to its queue.
    func procedure(_ procedure: Procedure, willAdd newOperation: Operation)

    /// `procedure` has added `newOperation` to its queue.
    func procedure(_ procedure: Procedure, didAdd newOperation: Operation)

    /// `procedure` is about to finish, with `error` if it failed.
    func will(finish procedure: Procedure, with error: (any Error)?)

    /// `procedure` is about to finish, with `error` if it failed; it does not until
    /// `pendingFinish` has gone.
    ///
    /// - Parameters:
    ///   - procedure: the procedure about to finish.
    ///   - error: the error it finishes with, if any.
    ///   - pendingFinish: keep it to hold the finish back — did-finish observers, dependents
    ///     and a group counting the procedure as done all wait — for work to do before it.
    func will(
        finish procedure: Procedure, with error: (any Error)?,
        pendingFinish: PendingFinishEvent)

    /// `procedure` has finished, with `error` if it failed.
    func did(finish procedure: Procedure, with error: (any Error)?)
}

extension ProcedureObserver {
    /// Does nothing.
    public func didAttach(to procedure: Procedure) {}
    /// Does nothing.
    public func will(execute procedure: Procedure) {}
    /// Calls ``will(execute:)``, letting the execute go ahead.
    public func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) {
        will(execute: procedure)
    }
    /// Does nothing.
    public func did(execute procedure: Procedure) {}
    /// Does nothing.
    public func did(cancel procedure: Procedure, with error: (any Error)?) {}
    /// Does nothing.
    public func procedure(_ procedure: Procedure, willAdd newOperation: Operation) {}
    /// Does nothing.
    public func procedure(_ procedure: Procedure, didAdd newOperation: Operation) {}
    /// Does nothing.
    public func will(finish procedure: Procedure, with error: (any Error)?) {}
    /// Calls ``will(finish:with:)``, letting the finish go ahead.
    public func will(
        finish procedure: Procedure, with error: (any Error)?,
        pendingFinish: PendingFinishEvent
    ) {
        will(finish: procedure, with: error)
    }
    /// Does nothing.
    public func did(finish procedure: Procedure, with error: (any Error)?) {}
}

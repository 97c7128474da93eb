import Foundation

/// Hears about the events of the procedures it is attached to.
///
/// One procedure's callbacks run one at a time, in the order the observers were attached,
/// never concurrently with its `execute()`. Every method has an empty default.
public protocol ProcedureObserver: Sendable {
    /// The observer was attached to `procedure`.
    func didAttach(to procedure: Procedure)

    /// `procedure` is about to execute.
    func will(execute procedure: Procedure)

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

    /// `procedure` has finished, with `error` if it failed.
    func did(finish procedure: Procedure, with error: (any Error)?)
}

extension ProcedureObserver {
    /// Does nothing.
    public func didAttach(to procedure: Procedure) {}
    /// Does nothing.
    public func will(execute procedure: Procedure) {}
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
    /// Does nothing.
    public func did(finish procedure: Procedure, with error: (any Error)?) {}
}

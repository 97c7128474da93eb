import Foundation

/// An observer made of blocks, one per event; leave out the events you do not need.
public struct BlockObserver: ProcedureObserver {
    /// A block given a procedure.
    public typealias ProcedureBlock = @Sendable (Procedure) -> Void
    /// A block given a procedure and its error, if any.
    public typealias ErrorBlock = @Sendable (Procedure, (any Error)?) -> Void
    /// A block given a procedure and an operation it adds.
    public typealias OperationBlock = @Sendable (Procedure, Operation) -> Void
    /// A block given a procedure and the token holding its execute.
    public typealias PendingExecuteBlock = @Sendable (Procedure, PendingExecuteEvent) -> Void
    /// A block given a procedure, its error, if any, and the token holding its finish.
    public typealias PendingFinishBlock =
        @Sendable (Procedure, (any Error)?, PendingFinishEvent) -> Void

    let didAttach: ProcedureBlock?
    let willExecute: PendingExecuteBlock?
    let didExecute: ProcedureBlock?
    let didCancel: ErrorBlock?
    let willAdd: OperationBlock?
    let didAdd: OperationBlock?
    let willFinish: PendingFinishBlock?
    let didFinish: ErrorBlock?

    /// An observer that calls the blocks given, each for its event.
    public init(
        didAttach: ProcedureBlock? = nil,
        willExecute: ProcedureBlock? = nil,
        didExecute: ProcedureBlock? = nil,
        didCancel: ErrorBlock? = nil,
        willAdd: OperationBlock? = nil,
        didAdd: OperationBlock? = nil,
        willFinish: ErrorBlock? = nil,
        didFinish: ErrorBlock? = nil
    ) {
        var willExecuteHolding: PendingExecuteBlock?
        if let willExecute { willExecuteHolding = { procedure, _ in willExecute(procedure) } }
        var willFinishHolding: PendingFinishBlock?
        if let willFinish {
            willFinishHolding = { procedure, error, _ in willFinish(procedure, error) }
        }
        self.init(
            didAttach: didAttach, willExecuteHolding: willExecuteHolding, didExecute: didExecute,
            didCancel: didCancel, willAdd: willAdd, didAdd: didAdd,
            willFinishHolding: willFinishHolding, didFinish: didFinish)
    }

    /// An observer that calls the blocks given, each for its event; its will-execute and
    /// will-finish blocks are handed the pending event, which they may keep to hold it back.
    public init(
        didAttach: ProcedureBlock? = nil,
        willExecuteHolding willExecute: PendingExecuteBlock?,
        didExecute: ProcedureBlock? = nil,
        didCancel: ErrorBlock? = nil,
        willAdd: OperationBlock? = nil,
        didAdd: OperationBlock? = nil,
        willFinishHolding willFinish: PendingFinishBlock?,
        didFinish: ErrorBlock? = nil
    ) {
        self.didAttach = didAttach
        self.willExecute = willExecute
        self.didExecute = didExecute
        self.didCancel = didCancel
        self.willAdd = willAdd
        self.didAdd = didAdd
        self.willFinish = willFinish
        self.didFinish = didFinish
    }

    /// Calls the did-attach block.
    public func didAttach(to procedure: Procedure) { didAttach?(procedure) }
    /// Calls the will-execute block.
    public func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) {
        willExecute?(procedure, pendingExecute)
    }
    /// Calls the did-execute block.
    public func did(execute procedure: Procedure) { didExecute?(procedure) }
    /// Calls the did-cancel block.
    public func did(cancel procedure: Procedure, with error: (any Error)?) {
        didCancel?(procedure, error)
    }
    /// Calls the will-add block.
    public func procedure(_ procedure: Procedure, willAdd newOperation: Operation) {
        willAdd?(procedure, newOperation)
    }
    /// Calls the did-add block.
    public func procedure(_ procedure: Procedure, didAdd newOperation: Operation) {
        didAdd?(procedure, newOperation)
    }
    /// Calls the will-finish block.
    public func will(
        finish procedure: Procedure, with error: (any Error)?,
        pendingFinish: PendingFinishEvent
    ) {
        willFinish?(procedure, error, pendingFinish)
    }
    /// Calls the did-finish block.
    public func did(finish procedure: Procedure, with error: (any Error)?) {
        didFinish?(procedure, error)
    }
}

/// Gives block-observer helpers the concrete type of the procedure they are called on.
public protocol ProcedureProtocol: Procedure {}

extension Procedure: ProcedureProtocol {}

extension ProcedureProtocol {
    /// Calls `block` just before the procedure executes.
    public func addWillExecuteBlockObserver(_ block: @escaping @Sendable (Self) -> Void) {
        addObserver(BlockObserver(willExecute: { block(unsafeDowncast($0, to: Self.self)) }))
    }

    /// Calls `block` just before the procedure executes, with the token holding the execute:
    /// keep it to do work before the execute, such as ``Procedure/produce(operation:before:)``.
    public func addWillExecuteBlockObserver(
        _ block: @escaping @Sendable (Self, PendingExecuteEvent) -> Void
    ) {
        addObserver(
            BlockObserver(
                willExecuteHolding: { block(unsafeDowncast($0, to: Self.self), $1) },
                willFinishHolding: nil))
    }

    /// Calls `block` once the procedure's `execute()` has returned.
    public func addDidExecuteBlockObserver(_ block: @escaping @Sendable (Self) -> Void) {
        addObserver(BlockObserver(didExecute: { block(unsafeDowncast($0, to: Self.self)) }))
    }

    /// Calls `block` when the procedure is cancelled, with the cancellation error if any.
    public func addDidCancelBlockObserver(
        _ block: @escaping @Sendable (Self, (any Error)?) -> Void
    ) {
        addObserver(
            BlockObserver(didCancel: { block(unsafeDowncast($0, to: Self.self), $1) }))
    }

    /// Calls `block` as the procedure starts to finish, with its error if any.
    public func addWillFinishBlockObserver(
        _ block: @escaping @Sendable (Self, (any Error)?) -> Void
    ) {
        addObserver(
            BlockObserver(willFinish: { block(unsafeDowncast($0, to: Self.self), $1) }))
    }

    /// Calls `block` as the procedure starts to finish, with its error if any and the token
    /// holding the finish: keep it to do work before the finish, such as
    /// ``Procedure/produce(operation:before:)``.
    public func addWillFinishBlockObserver(
        _ block: @escaping @Sendable (Self, (any Error)?, PendingFinishEvent) -> Void
    ) {
        addObserver(
            BlockObserver(
                willExecuteHolding: nil,
                willFinishHolding: { block(unsafeDowncast($0, to: Self.self), $1, $2) }))
    }

    /// Calls `block` once the procedure has finished, with its error if any.
    public func addDidFinishBlockObserver(
        _ block: @escaping @Sendable (Self, (any Error)?) -> Void
    ) {
        addObserver(
            BlockObserver(didFinish: { block(unsafeDowncast($0, to: Self.self), $1) }))
    }
}

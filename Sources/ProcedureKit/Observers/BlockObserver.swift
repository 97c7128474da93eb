import Foundation

/// An observer made of blocks, one per event; leave out the events you do not need.
public struct BlockObserver: ProcedureObserver {
    /// A block given a procedure.
    public typealias ProcedureBlock = @Sendable (Procedure) -> Void
    /// A block given a procedure and its error, if any.
    public typealias ErrorBlock = @Sendable (Procedure, (any Error)?) -> Void
    /// A block given a procedure and an operation it adds.
    public typealias OperationBlock = @Sendable (Procedure, Operation) -> Void

    let didAttach: ProcedureBlock?
    let willExecute: ProcedureBlock?
    let didExecute: ProcedureBlock?
    let didCancel: ErrorBlock?
    let willAdd: OperationBlock?
    let didAdd: OperationBlock?
    let willFinish: ErrorBlock?
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
    public func will(execute procedure: Procedure) { willExecute?(procedure) }
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
    public func will(finish procedure: Procedure, with error: (any Error)?) {
        willFinish?(procedure, error)
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

    /// Calls `block` once the procedure has finished, with its error if any.
    public func addDidFinishBlockObserver(
        _ block: @escaping @Sendable (Self, (any Error)?) -> Void
    ) {
        addObserver(
            BlockObserver(didFinish: { block(unsafeDowncast($0, to: Self.self), $1) }))
    }
}

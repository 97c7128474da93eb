import Foundation

extension ProcedureQueue {
    /// Adds `operation`: a ``Procedure`` or any Foundation `Operation`.
    ///
    /// - Returns: a future signalled once the operation has been added. The queue adds it at
    ///   once, so the future is signalled when this returns (the original's may be signalled
    ///   later, once its delegate's will-add future is).
    @discardableResult
    public func addOperation(_ operation: Operation) -> ProcedureFuture {
        addOperations([operation])
    }

    /// Adds a block to run as an operation.
    ///
    /// - Returns: a future signalled once it has been added: at once.
    @discardableResult
    public func addOperation(_ block: @escaping @Sendable () -> Void) -> ProcedureFuture {
        addOperation(BlockOperation(block: block))
    }

    /// Adds `operations`, optionally waiting until all of them have finished.
    ///
    /// - Returns: a future signalled once they have been added: at once.
    @discardableResult
    public func addOperations(_ operations: [Operation], waitUntilFinished: Bool = false)
        -> ProcedureFuture
    {
        add(operations, fromOwner: false)
        if waitUntilFinished {
            for operation in operations { operation.waitUntilFinished() }
        }
        return .signalled
    }

    /// Adds each of `operations`.
    ///
    /// - Returns: a future signalled once they have been added: at once.
    @discardableResult
    public func addOperations(_ operations: Operation...) -> ProcedureFuture {
        addOperations(operations)
    }

    /// Adds `operation`.
    ///
    /// - Returns: a future signalled once it has been added: at once.
    @discardableResult
    public func add(operation: Operation) -> ProcedureFuture {
        addOperation(operation)
    }

    /// Adds each of `operations`.
    ///
    /// - Returns: a future signalled once they have been added: at once.
    @discardableResult
    public func add<S: Sequence<Operation>>(operations: S) -> ProcedureFuture {
        addOperations(Array(operations))
    }

    /// Adds each of `operations`.
    ///
    /// - Returns: a future signalled once they have been added: at once.
    @discardableResult
    public func add(operations: Operation...) -> ProcedureFuture {
        addOperations(operations)
    }
}

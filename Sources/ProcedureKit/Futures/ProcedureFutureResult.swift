import Dispatch

/// A result that will be available: a value or an error, given by a ``ProcedurePromiseResult``.
public final class ProcedureFutureResult<T: Sendable>: Sendable {
    let completion: FutureCompletion<ProcedureResult<T>>

    init(_ completion: FutureCompletion<ProcedureResult<T>>) {
        self.completion = completion
    }

    /// Whether the result is available.
    public var hasResult: Bool {
        completion.isSettled
    }

    /// Runs `block` with the result on `queue` once it is available (asynchronously, even if
    /// it already is).
    ///
    /// - Parameters:
    ///   - queue: where `block` runs.
    ///   - block: the work to do with the result.
    public func then(
        on queue: DispatchQueue, block: @escaping @Sendable (ProcedureResult<T>) -> Void
    ) {
        completion.whenSettled { result in queue.async { block(result) } }
    }

    /// Runs `block` with the result once it is available, in turn with `procedure`'s other
    /// callbacks, as a ``ProcedureFuture`` does.
    ///
    /// - Parameters:
    ///   - procedure: whose callbacks `block` takes its turn with.
    ///   - block: the work to do with the result.
    public func then(
        on procedure: Procedure, block: @escaping @Sendable (ProcedureResult<T>) -> Void
    ) {
        completion.whenSettled { result in procedure.post(.work { block(result) }) }
    }
}

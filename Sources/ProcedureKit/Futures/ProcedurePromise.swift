/// Signals a ``ProcedureFuture`` when the work it stands for is done.
///
/// Hand out ``future``; call ``complete()`` when the work is done:
///
/// ```swift
/// func warmUp() -> ProcedureFuture {
///     let promise = ProcedurePromise()
///     DispatchQueue.global().async {
///         loadCaches()
///         promise.complete()
///     }
///     return promise.future
/// }
/// warmUp().then(on: DispatchQueue.main) { print("warm") }
/// ```
///
/// A promise released without being completed signals its future, so that nothing waits for
/// it forever; the original traps instead (in debug builds). Use a ``ProcedurePromiseResult``
/// where a promise that is never kept must be told apart.
public final class ProcedurePromise: Sendable {
    /// The future this promise signals.
    public let future: ProcedureFuture

    /// Creates a promise whose future is not signalled yet.
    public init() {
        future = ProcedureFuture(FutureCompletion())
    }

    deinit {
        future.completion.settle(())
    }

    /// Signals the future, running the blocks scheduled on it; only the first call counts.
    public func complete() {
        future.completion.settle(())
    }
}

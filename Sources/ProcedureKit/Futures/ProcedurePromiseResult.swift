/// Completes a ``ProcedureFutureResult`` with a value or an error.
///
/// ```swift
/// func fetchVersion() -> ProcedureFutureResult<String> {
///     let promise = ProcedurePromiseResult<String>()
///     DispatchQueue.global().async {
///         do { promise.complete(withResult: try readVersion()) }
///         catch { promise.complete(withFailure: error) }
///     }
///     return promise.future
/// }
/// ```
///
/// Only the first completion counts. A promise released without being completed completes its
/// future with ``ProcedureKitError/UnfulfilledPromise``, as the original does in release
/// builds (its debug builds trap).
public final class ProcedurePromiseResult<T: Sendable>: Sendable {
    /// The future this promise completes.
    public let future: ProcedureFutureResult<T>

    /// Creates a promise whose future has no result yet.
    public init() {
        future = ProcedureFutureResult(FutureCompletion())
    }

    deinit {
        future.completion.settle(.failure(ProcedureKitError.UnfulfilledPromise()))
    }

    /// Completes the future with `value`, running the blocks scheduled on it.
    ///
    /// - Parameter value: the result.
    public func complete(withResult value: T) {
        future.completion.settle(.success(value))
    }

    /// Completes the future with `error`, running the blocks scheduled on it.
    ///
    /// - Parameter error: why there is no result.
    public func complete(withFailure error: any Error) {
        future.completion.settle(.failure(error))
    }
}

/// A procedure whose block hands its output to a completion, from any thread, when it has it.
///
/// The block runs when the procedure executes; the procedure finishes when the completion is
/// called, with the result's error if it is a failure. Only the first call counts.
///
/// ```swift
/// let fetch = AsyncResultProcedure<Data> { finish in
///     download(url) { data, error in finish(data.map { .success($0) } ?? .failure(error!)) }
/// }
/// ```
open class AsyncResultProcedure<Output>: ResultProcedure<Output>, @unchecked Sendable {
    // @unchecked Sendable: adds no state to ResultProcedure's.

    /// Called with the procedure's result; the procedure finishes with it.
    public typealias FinishingBlock = @Sendable (ProcedureResult<Output>) -> Void

    /// Creates a procedure whose output is the result `block` passes to its completion.
    public init(block: @escaping @Sendable (_ finish: @escaping FinishingBlock) -> Void) {
        super.init(body: .completing(block))
    }
}

/// A procedure that turns its input into its output with a block that hands the output to a
/// completion, from any thread, when it has it.
///
/// The procedure finishes when the completion is called, with the result's error if it is a
/// failure; only the first call counts. Executing without an input finishes it with a
/// `requirementNotSatisfied` failure, without calling the block.
open class AsyncTransformProcedure<Input, Output>: TransformProcedure<Input, Output>,
    @unchecked Sendable
{
    // @unchecked Sendable: adds no state to TransformProcedure's.

    /// Called with the procedure's result; the procedure finishes with it.
    public typealias FinishingBlock = @Sendable (ProcedureResult<Output>) -> Void

    /// Creates a procedure whose output is the result `transform` passes to its completion.
    public init(
        transform: @escaping @Sendable (_ input: Input, _ finish: @escaping FinishingBlock) -> Void
    ) {
        super.init(body: .completing(transform))
    }
}

/// A condition decided by a block: `true` is satisfied, `false` is "ignored" (it skips the
/// procedure, without an error, unless another condition is satisfied), and a thrown error `e`
/// fails the condition with ``ProcedureKitError/conditionFailed(with:)`` wrapping `e`.
public final class BlockCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: its only stored property, a Sendable block, is a constant.
    private let block: @Sendable () throws -> Bool

    /// Creates a condition that evaluates `block`.
    public init(block: @escaping @Sendable () throws -> Bool) {
        self.block = block
        super.init()
        name = "BlockCondition"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        do {
            completion(.success(try block()))
        } catch {
            completion(.failure(ProcedureKitError.conditionFailed(with: error)))
        }
    }
}

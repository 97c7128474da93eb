/// A condition decided by a block: `true` lets the procedure run, `false` skips it, and a
/// thrown error fails the condition.
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
            completion(.failure(error))
        }
    }
}

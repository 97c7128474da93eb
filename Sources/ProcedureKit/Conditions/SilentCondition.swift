/// Evaluates another condition without producing its dependencies.
///
/// Use it to ask "is this already so?" without making it so: a condition that produces an
/// operation to satisfy itself is evaluated as things stand. As in the original, the wrapped
/// condition's produced dependencies are removed from it.
public final class SilentCondition: Condition, @unchecked Sendable {
    /// The condition evaluated silently.
    public let condition: Condition

    /// Wraps `condition`, keeping its waited-for dependencies and categories, and removes the
    /// dependencies it produces.
    public init(_ condition: Condition) {
        condition.removeDependencies(condition.producedDependencies)
        self.condition = condition
        super.init()
        adopt(condition)
        name = "Silent<\(condition.displayName)>"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        condition.evaluate(procedure: procedure, completion: completion)
    }

    override func evaluate(
        procedure: Procedure, within evaluation: ConditionEvaluation,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        condition.evaluate(procedure: procedure, within: evaluation, completion: completion)
    }
}

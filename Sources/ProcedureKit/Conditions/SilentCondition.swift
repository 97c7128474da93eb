/// Evaluates another condition without producing its dependencies.
///
/// Use it to ask "is this already so?" without making it so: a condition that produces an
/// operation to satisfy itself is evaluated as things stand.
public final class SilentCondition: Condition, @unchecked Sendable {
    /// The condition evaluated silently.
    public let condition: Condition

    /// Wraps `condition`, keeping its waited-for dependencies and categories but not the
    /// dependencies it produces.
    public init(_ condition: Condition) {
        self.condition = condition
        super.init()
        adopt(condition, producing: false)
        name = "Silent<\(condition.name ?? String(describing: type(of: condition)))>"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        condition.evaluate(procedure: procedure, completion: completion)
    }
}

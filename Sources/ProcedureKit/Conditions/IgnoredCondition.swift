/// Evaluates another condition and answers `false` ("ignored") where it fails, as the
/// original's does: the procedure is skipped without an error, unless another of its conditions
/// is satisfied. A satisfied or ignored condition answers as it is.
public final class IgnoredCondition: Condition, @unchecked Sendable {
    /// The condition whose failures are ignored.
    public let condition: Condition

    /// Wraps `condition`, which keeps its dependencies and categories.
    public init(_ condition: Condition) {
        self.condition = condition
        super.init()
        adopt(condition)
        name = "Ignored<\(condition.displayName)>"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        condition.evaluate(procedure: procedure) { completion(Self.ignoringFailure($0)) }
    }

    override func evaluate(
        procedure: Procedure, within evaluation: ConditionEvaluation,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        condition.evaluate(procedure: procedure, within: evaluation) {
            completion(Self.ignoringFailure($0))
        }
    }

    private static func ignoringFailure(_ result: ConditionResult) -> ConditionResult {
        result.error == nil ? result : .success(false)
    }
}

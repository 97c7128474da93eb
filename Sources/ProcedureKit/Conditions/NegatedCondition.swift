/// Inverts another condition, as the original's does: failing, with
/// ``ProcedureKitError/conditionFailed(with:)``, when it is satisfied; satisfied when it fails
/// or answers `false`, so that `!FalseCondition()` lets the procedure run.
public final class NegatedCondition: Condition, @unchecked Sendable {
    /// The condition being inverted.
    public let condition: Condition

    /// Creates the negation of `condition`, which keeps its dependencies and categories.
    public init(_ condition: Condition) {
        self.condition = condition
        super.init()
        adopt(condition)
        name = "Not<\(condition.displayName)>"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        condition.evaluate(procedure: procedure) { completion(Self.negation(of: $0)) }
    }

    override func evaluate(
        procedure: Procedure, within evaluation: ConditionEvaluation,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        condition.evaluate(procedure: procedure, within: evaluation) {
            completion(Self.negation(of: $0))
        }
    }

    private static func negation(of result: ConditionResult) -> ConditionResult {
        switch result {
        case .success(true): return .failure(ProcedureKitError.conditionFailed())
        case .success(false), .failure: return .success(true)
        }
    }
}

/// The negation of `condition`.
public prefix func ! (condition: Condition) -> NegatedCondition {
    NegatedCondition(condition)
}

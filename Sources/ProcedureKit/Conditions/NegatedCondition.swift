/// Inverts another condition: satisfied when it answers `false`; failing, with
/// ``ProcedureKitError/conditionFailed(with:)``, when it is satisfied, as the original's does.
///
/// A failure of the inner condition stays a failure: an error while evaluating is not a
/// "no". (ProcedureKit on Apple platforms turned failures into success; a workflow whose
/// `not` condition hit an error should fail, not run.)
public final class NegatedCondition: Condition, @unchecked Sendable {
    /// The condition being inverted.
    public let condition: Condition

    /// Creates the negation of `condition`, which keeps its dependencies and categories.
    public init(_ condition: Condition) {
        self.condition = condition
        super.init()
        adopt(condition)
        name = "Not<\(condition.name ?? String(describing: type(of: condition)))>"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        condition.evaluate(procedure: procedure) { result in
            switch result {
            case .success(true): completion(.failure(ProcedureKitError.conditionFailed()))
            case .success(false): completion(.success(true))
            case .failure(let error): completion(.failure(error))
            }
        }
    }
}

/// The negation of `condition`.
public prefix func ! (condition: Condition) -> NegatedCondition {
    NegatedCondition(condition)
}

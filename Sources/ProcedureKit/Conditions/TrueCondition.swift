/// A condition that is always satisfied.
public final class TrueCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: it adds no stored property to Condition, which is Sendable.
    public override init() {
        super.init()
        name = "TrueCondition"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        completion(.success(true))
    }
}

/// A condition that always fails, with ``ProcedureKitError/conditionFailed(with:)``, as the
/// original's does: the procedure is cancelled with an error. (To skip a procedure without an
/// error, answer `false`, as `BlockCondition { false }` does.)
public final class FalseCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: it adds no stored property to Condition, which is Sendable.
    public override init() {
        super.init()
        name = "FalseCondition"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        completion(.failure(ProcedureKitError.conditionFailed()))
    }
}

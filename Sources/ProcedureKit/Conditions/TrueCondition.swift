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

/// A condition that is never satisfied: the procedure is skipped (cancelled without an error).
public final class FalseCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: it adds no stored property to Condition, which is Sendable.
    public override init() {
        super.init()
        name = "FalseCondition"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        completion(.success(false))
    }
}

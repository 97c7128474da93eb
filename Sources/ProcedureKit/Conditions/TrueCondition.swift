/// A condition that is always satisfied.
public final class TrueCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: it adds no stored property to Condition, which is Sendable.

    /// A condition called `name` that is always satisfied, and that makes the procedure
    /// mutually exclusive in `mutuallyExclusiveCategory` if one is given.
    public init(name: String = "TrueCondition", mutuallyExclusiveCategory: String? = nil) {
        super.init()
        self.name = name
        if let mutuallyExclusiveCategory {
            addToAttachedProcedure(mutuallyExclusiveCategory: mutuallyExclusiveCategory)
        }
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

    /// A condition called `name` that always fails, and that makes the procedure mutually
    /// exclusive in `mutuallyExclusiveCategory` if one is given.
    public init(name: String = "FalseCondition", mutuallyExclusiveCategory: String? = nil) {
        super.init()
        self.name = name
        if let mutuallyExclusiveCategory {
            addToAttachedProcedure(mutuallyExclusiveCategory: mutuallyExclusiveCategory)
        }
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        completion(.failure(ProcedureKitError.conditionFailed()))
    }
}

/// Satisfied when none of its conditions fails and at least one is satisfied.
///
/// Each condition is evaluated once its own dependencies have finished, and the first failure
/// decides at once, as in the original: conditions still waiting are not evaluated, and the
/// dependencies they produced are cancelled if still running. A `false` ("ignored", as
/// ``IgnoredCondition`` answers) does not count beside a `true`: the whole is `false` only when
/// every condition is — or when there is none, so that an empty `AndCondition` skips the
/// procedure. A condition given twice is evaluated once.
public final class AndCondition: Condition, @unchecked Sendable {
    /// The conditions combined, each once.
    public let conditions: [Condition]

    /// Combines `conditions`. Their dependencies stay theirs, as in the original: each is
    /// evaluated once its own have finished. Their categories apply to the procedure.
    public init(_ conditions: [Condition]) {
        self.conditions = conditions.removingDuplicates()
        super.init()
        for condition in conditions { adoptCategories(of: condition) }
        name = "And"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        let evaluation = ConditionEvaluation(
            .all, count: conditions.count, procedure: procedure,
            queue: procedure.queue ?? ProcedureQueue(), completion: completion)
        evaluation.start(conditions)
    }

    override func evaluate(
        procedure: Procedure, within evaluation: ConditionEvaluation,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluation.child(.all, count: conditions.count, completion: completion).start(conditions)
    }
}

/// Satisfied when any one of its conditions is.
///
/// Each condition is evaluated once its own dependencies have finished, and the first `true`
/// decides at once, as in the original: conditions still waiting are not evaluated, and the
/// dependencies they produced are cancelled if still running. Otherwise the first failure, in
/// the order given, wins; otherwise it is `false`. A condition given twice is evaluated once.
public final class OrCondition: Condition, @unchecked Sendable {
    /// The conditions combined, each once.
    public let conditions: [Condition]

    /// Combines `conditions`. Their dependencies stay theirs, as in the original: each is
    /// evaluated once its own have finished. Their categories apply to the procedure.
    public init(_ conditions: [Condition]) {
        self.conditions = conditions.removingDuplicates()
        super.init()
        for condition in conditions { adoptCategories(of: condition) }
        name = "Or"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        let evaluation = ConditionEvaluation(
            .any, count: conditions.count, procedure: procedure,
            queue: procedure.queue ?? ProcedureQueue(), completion: completion)
        evaluation.start(conditions)
    }

    override func evaluate(
        procedure: Procedure, within evaluation: ConditionEvaluation,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluation.child(.any, count: conditions.count, completion: completion).start(conditions)
    }
}

/// Both conditions.
public func && (lhs: Condition, rhs: Condition) -> AndCondition {
    AndCondition([lhs, rhs])
}

/// Either condition.
public func || (lhs: Condition, rhs: Condition) -> OrCondition {
    OrCondition([lhs, rhs])
}

extension Array where Element == Condition {
    /// The conditions in order, each instance once (the original filters duplicates too).
    func removingDuplicates() -> [Condition] {
        var seen: Set<ObjectIdentifier> = []
        return filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
}

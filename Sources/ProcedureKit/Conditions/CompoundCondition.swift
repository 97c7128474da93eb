/// Satisfied when none of its conditions fails and at least one is satisfied.
///
/// All conditions are evaluated. The first failure, in the order given, wins. A `false`
/// ("ignored", as ``IgnoredCondition`` answers) does not count beside a `true`, as in the
/// original: the whole is `false` only when every condition is — or when there is none, so
/// that an empty `AndCondition` skips the procedure. A condition given twice is evaluated once.
public final class AndCondition: Condition, @unchecked Sendable {
    /// The conditions combined, each once.
    public let conditions: [Condition]

    /// Combines `conditions`, keeping all their dependencies and categories.
    public init(_ conditions: [Condition]) {
        self.conditions = conditions.removingDuplicates()
        super.init()
        for condition in conditions { adopt(condition) }
        name = "And"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluateAll(conditions, procedure: procedure) { results in
            completion(results.allSatisfied)
        }
    }
}

/// Satisfied when any one of its conditions is.
///
/// All conditions are evaluated. Any `true` makes the whole `true`; otherwise the first
/// failure, in the order given, wins; otherwise it is `false`. A condition given twice is
/// evaluated once.
public final class OrCondition: Condition, @unchecked Sendable {
    /// The conditions combined, each once.
    public let conditions: [Condition]

    /// Combines `conditions`, keeping all their dependencies and categories.
    public init(_ conditions: [Condition]) {
        self.conditions = conditions.removingDuplicates()
        super.init()
        for condition in conditions { adopt(condition) }
        name = "Or"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluateAll(conditions, procedure: procedure) { results in
            completion(results.anySatisfied)
        }
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

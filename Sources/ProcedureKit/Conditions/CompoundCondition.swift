/// Satisfied when every one of its conditions is.
///
/// All conditions are evaluated. The first failure, in the order given, wins; otherwise any
/// `false` makes the whole `false`. With no condition at all it is not satisfied: the
/// procedure is skipped, as the original's empty compound condition skips it. A condition
/// given twice is evaluated once.
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
            if let failure = results.first(where: { $0.error != nil }) {
                return completion(failure)
            }
            completion(.success(!results.isEmpty && results.allSatisfy { $0.value == true }))
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
            if results.contains(where: { $0.value == true }) { return completion(.success(true)) }
            if let failure = results.first(where: { $0.error != nil }) {
                return completion(failure)
            }
            completion(.success(false))
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

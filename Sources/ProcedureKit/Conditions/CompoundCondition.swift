/// Conditions combined with "and" or "or", as the original's `CompoundCondition` combines
/// them; ``AndCondition`` and ``OrCondition`` are the two kinds by name.
///
/// The parts' dependencies stay theirs, as in the original: each part is evaluated once its own
/// dependencies have finished, and the first result that settles the whole decides at once —
/// a failure for "and", a `true` for "or" —: parts still waiting are not evaluated, and the
/// dependencies they produced are cancelled if still running. The parts' categories apply to
/// the procedure. A condition given twice is evaluated once.
open class CompoundCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: the stored properties are constants.

    /// The conditions combined, each once.
    public let conditions: [Condition]
    private let combination: ConditionEvaluation.Combination

    /// Satisfied when none of `conditions` fails and at least one is satisfied: a `false`
    /// ("ignored", as ``IgnoredCondition`` answers) does not count beside a `true`, and the
    /// whole is `false` only when every condition is — or when there is none, so that an empty
    /// one skips the procedure.
    public init<S: Sequence<Condition>>(andPredicateWith conditions: S) {
        self.conditions = Array(conditions).removingDuplicates()
        combination = .all
        super.init()
        setUp(name: "And")
    }

    /// Satisfied when any one of `conditions` is; otherwise failed, with the error of the one
    /// that failed, or, when several did, with ``ProcedureKitError/FailedConditions`` holding
    /// all their errors in the order given, as in the original; otherwise `false`.
    public init<S: Sequence<Condition>>(orPredicateWith conditions: S) {
        self.conditions = Array(conditions).removingDuplicates()
        combination = .any
        super.init()
        setUp(name: "Or")
    }

    private func setUp(name: String) {
        for condition in conditions { adoptCategories(of: condition) }
        self.name = name
    }

    public final override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        let evaluation = ConditionEvaluation(
            combination, count: conditions.count, procedure: procedure,
            queue: procedure.queue ?? ProcedureQueue(), completion: completion)
        evaluation.start(conditions)
    }

    final override func evaluate(
        procedure: Procedure, within evaluation: ConditionEvaluation,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluation.child(combination, count: conditions.count, completion: completion)
            .start(conditions)
    }
}

/// Satisfied when none of its conditions fails and at least one is satisfied (see
/// ``CompoundCondition/init(andPredicateWith:)``).
public final class AndCondition: CompoundCondition, @unchecked Sendable {
    // @unchecked Sendable: it adds no stored property to CompoundCondition.

    /// Combines `conditions` with "and".
    public init(_ conditions: [Condition]) {
        super.init(andPredicateWith: conditions)
    }
}

/// Satisfied when any one of its conditions is (see
/// ``CompoundCondition/init(orPredicateWith:)``).
public final class OrCondition: CompoundCondition, @unchecked Sendable {
    // @unchecked Sendable: it adds no stored property to CompoundCondition.

    /// Combines `conditions` with "or".
    public init(_ conditions: [Condition]) {
        super.init(orPredicateWith: conditions)
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

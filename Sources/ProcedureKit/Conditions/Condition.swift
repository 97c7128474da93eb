import Foundation

/// The result of evaluating a condition: `.success(true)` is satisfied; `.success(false)` is
/// "ignored", as in the original: it does not count beside a satisfied condition, and skips the
/// procedure (cancelled without an error) only when every condition answers it;
/// `.failure(error)` cancels the procedure with `error` as it is, as in the original (the
/// conditions provided fail with ``ProcedureKitError`` values: `conditionFailed`,
/// `dependenciesFailed`, `dependenciesCancelled`).
public typealias ConditionResult = ProcedureResult<Bool>

/// A requirement a procedure must meet before it executes.
///
/// Conditions are evaluated after the procedure's dependencies have finished, each as soon as
/// its own dependencies have: those added with ``addDependency(_:)`` (scheduled elsewhere)
/// and those produced with ``produceDependency(_:)`` (added to the procedure's queue once its
/// dependencies have finished). As in the original, the first failure decides for all of the
/// procedure's conditions, and the produced dependencies still running are then cancelled.
/// Subclasses override ``evaluate(procedure:completion:)``.
///
/// Configure a condition before attaching it to a procedure.
open class Condition: @unchecked Sendable {
    // @unchecked Sendable: the mutable configuration lives in `configuration`, a `Locked` mutex.

    private struct Configuration {
        var name: String?
        var dependencies: [Operation] = []
        var producedDependencies: [Operation] = []
        var mutuallyExclusiveCategories: Set<String> = []
        var dependencyRequirements: DependencyRequirements = []
        /// How many places a shared category has, where it is not one.
        var categoryLimits: [String: Int] = [:]
        /// How many places of a shared category the procedure takes, where it is not one.
        var categoryWeights: [String: Int] = [:]
    }

    private let configuration = Locked(Configuration())

    /// A condition with no dependencies and no categories; subclasses override
    /// evaluate(procedure:completion:).
    public init() {}

    /// A name for diagnostics.
    public var name: String? {
        get { configuration.withLock { $0.name } }
        set { configuration.withLock { $0.name = newValue } }
    }

    /// Operations scheduled elsewhere that must finish before evaluation.
    public var dependencies: [Operation] {
        configuration.withLock { $0.dependencies }
    }

    /// Operations the condition produces: added to the procedure's queue after the procedure's
    /// dependencies finish, and finished before evaluation.
    public var producedDependencies: [Operation] {
        configuration.withLock { $0.producedDependencies }
    }

    /// What the condition requires of its dependencies once they have finished, checked before
    /// it is evaluated; nothing by default. See ``DependencyRequirements``.
    public var dependencyRequirements: DependencyRequirements {
        get { configuration.withLock { $0.dependencyRequirements } }
        set { configuration.withLock { $0.dependencyRequirements = newValue } }
    }

    /// Categories in which at most one procedure may execute at a time.
    public var mutuallyExclusiveCategories: Set<String> {
        configuration.withLock { $0.mutuallyExclusiveCategories }
    }

    /// Whether the condition makes its procedure mutually exclusive with others.
    public var isMutuallyExclusive: Bool {
        !mutuallyExclusiveCategories.isEmpty
    }

    /// Waits for `operation`, which is scheduled elsewhere, before evaluating.
    public final func addDependency(_ operation: Operation) {
        configuration.withLock { $0.dependencies.append(operation) }
    }

    /// Waits for `dependency`, which is scheduled elsewhere, before evaluating.
    public final func add(dependency: Operation) {
        addDependency(dependency)
    }

    /// Runs `operation` in the procedure's queue, and waits for it, before evaluating.
    public final func produceDependency(_ operation: Operation) {
        configuration.withLock { $0.producedDependencies.append(operation) }
    }

    /// Runs `dependency` in the procedure's queue, and waits for it, before evaluating.
    public final func produce(dependency: Operation) {
        produceDependency(dependency)
    }

    /// Stops waiting for `operation`, and stops producing it: it is removed from both
    /// ``dependencies`` and ``producedDependencies``.
    public final func removeDependency(_ operation: Operation) {
        removeDependencies([operation])
    }

    /// Stops waiting for, and producing, each of `operations`.
    public final func removeDependencies(_ operations: [Operation]) {
        configuration.withLock { configuration in
            for operation in operations {
                configuration.dependencies.removeAll { $0 === operation }
                configuration.producedDependencies.removeAll { $0 === operation }
            }
        }
    }

    /// Makes the procedure this condition is attached to mutually exclusive with every other
    /// procedure in `mutuallyExclusiveCategory`.
    public final func addToAttachedProcedure(mutuallyExclusiveCategory: String) {
        configuration.withLock {
            _ = $0.mutuallyExclusiveCategories.insert(mutuallyExclusiveCategory)
        }
    }

    /// Makes the procedure this condition is attached to take `weight` of the `limit` places
    /// of `sharedCategory` while it executes, across all queues: with the default weight, one
    /// of at most `limit` procedures at once. A weight over the limit takes every place. Every
    /// claim of a category should give it the same limit: the first claim waiting or holding
    /// sets it.
    public final func addToAttachedProcedure(sharedCategory: String, limit: Int, weight: Int = 1) {
        configuration.withLock {
            _ = $0.mutuallyExclusiveCategories.insert(sharedCategory)
            $0.categoryLimits[sharedCategory] = max(1, limit)
            $0.categoryWeights[sharedCategory] = weight > 1 ? min(weight, max(1, limit)) : nil
        }
    }

    /// How many procedures `category` admits at once: 1 unless it was claimed with
    /// ``addToAttachedProcedure(sharedCategory:limit:)``.
    public final func limit(of category: String) -> Int {
        configuration.withLock { $0.categoryLimits[category] ?? 1 }
    }

    /// How many places of `category` the procedure takes: 1 unless it was claimed with a
    /// weight by ``addToAttachedProcedure(sharedCategory:limit:weight:)``.
    public final func weight(of category: String) -> Int {
        configuration.withLock { $0.categoryWeights[category] ?? 1 }
    }

    /// Decides whether `procedure` may execute, calling `completion` exactly once, from any
    /// thread.
    open func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        completion(
            .failure(
                ProcedureKitError.programmingError(
                    reason: "\(type(of: self)) does not override evaluate(procedure:completion:)")))
    }

    /// Evaluates as part of `evaluation`: a compound condition evaluates its parts in a child
    /// of it, waiting for each part's dependencies; any other condition evaluates as
    /// ``evaluate(procedure:completion:)`` does.
    func evaluate(
        procedure: Procedure, within evaluation: ConditionEvaluation,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluate(procedure: procedure, completion: completion)
    }
}

extension Condition {
    /// Copies another condition's dependencies and categories into this one, for conditions
    /// that wrap another.
    func adopt(_ condition: Condition) {
        for dependency in condition.dependencies { addDependency(dependency) }
        for dependency in condition.producedDependencies { produceDependency(dependency) }
        adoptCategories(of: condition)
    }

    /// Copies another condition's categories into this one, for conditions built from others.
    func adoptCategories(of condition: Condition) {
        for category in condition.mutuallyExclusiveCategories {
            addToAttachedProcedure(
                sharedCategory: category, limit: condition.limit(of: category),
                weight: condition.weight(of: category))
        }
    }
}

extension Condition: Hashable {
    /// Two conditions are equal when they are the same instance, as in the original.
    public static func == (lhs: Condition, rhs: Condition) -> Bool {
        lhs === rhs
    }

    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

import Foundation

/// Satisfied when no dependency of the procedure failed or was cancelled.
///
/// A dependency that finished with an error fails the condition with `dependenciesFailed`. A
/// cancelled dependency fails it with `dependenciesCancelled`, or, with
/// `ignoreCancellations`, skips the procedure without an error.
public final class NoFailedDependenciesCondition: Condition, @unchecked Sendable {
    /// Whether cancelled dependencies skip the procedure rather than fail it.
    public let ignoreCancellations: Bool

    /// A condition that fails when a dependency failed or was cancelled; with
    /// `ignoreCancellations`, a cancelled dependency skips the procedure instead.
    public init(ignoreCancellations: Bool = false) {
        self.ignoreCancellations = ignoreCancellations
        super.init()
        name = "NoFailedDependencies"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        let dependencies = procedure.dependencies
        if dependencies.contains(where: { ($0 as? Procedure)?.failed == true && !$0.isCancelled }) {
            return completion(.failure(ProcedureKitError.dependenciesFailed()))
        }
        guard dependencies.contains(where: \.isCancelled) else {
            return completion(.success(true))
        }
        completion(
            ignoreCancellations
                ? .success(false) : .failure(ProcedureKitError.dependenciesCancelled()))
    }
}

import Foundation

/// Satisfied when no dependency of the procedure failed or was cancelled.
///
/// A dependency that finished with an error (cancelled with one too, as in the original) fails
/// the condition with `dependenciesFailed`, which becomes the procedure's error as it is. A
/// cancelled dependency fails it with `dependenciesCancelled`, or, with
/// `ignoreCancellations`, makes it answer `false` ("ignored": the procedure is skipped, without
/// an error, unless another condition is satisfied).
public final class NoFailedDependenciesCondition: Condition, @unchecked Sendable {
    /// Whether cancelled dependencies make the condition answer `false` rather than fail.
    public let ignoreCancellations: Bool

    /// A condition that fails when a dependency failed or was cancelled; with
    /// `ignoreCancellations`, a cancelled dependency makes it answer `false` instead.
    public init(ignoreCancellations: Bool = false) {
        self.ignoreCancellations = ignoreCancellations
        super.init()
        name = "NoFailedDependencies"
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        let dependencies = procedure.dependencies
        if dependencies.contains(where: { ($0 as? Procedure)?.failed == true }) {
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

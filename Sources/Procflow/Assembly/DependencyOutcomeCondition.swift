import ProcedureKit

/// Skips a step when a step it depends on failed, or when a step it takes data from did not
/// run: the rule that failures stop dependents, and skips stop those that need the data.
final class DependencyOutcomeCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: every stored property is a constant.
    struct Dependency {
        let id: String
        let procedure: Procedure
        /// Whether the step takes this dependency's output.
        let takesData: Bool
        /// Whether the dependency's failures are only warnings.
        let tolerated: Bool
    }

    private let watched: [Dependency]

    /// Judges `dependencies` once they have all finished: it waits for them itself, because
    /// ProcedureKit evaluates a condition as soon as its own dependencies have finished, and a
    /// step may take data from one (for its `when`) that is not a dependency of its procedure.
    init(_ dependencies: [Dependency]) {
        watched = dependencies
        super.init()
        name = "dependencies"
        for dependency in dependencies { addDependency(dependency.procedure) }
    }

    override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        if let reason = Self.reason(watched) {
            completion(.failure(SkipReason(reason)))
        } else {
            completion(.success(true))
        }
    }

    /// Why a step with these dependencies must not run, if it must not.
    static func reason(_ dependencies: [Dependency]) -> String? {
        for dependency in dependencies {
            if let reason = reason(StepOutcome.of(dependency.procedure), of: dependency) {
                return reason
            }
        }
        return nil
    }

    /// Why `outcome` of `dependency` stops the step, if it does.
    private static func reason(_ outcome: StepOutcome, of dependency: Dependency) -> String? {
        switch outcome {
        case .failed:
            if !dependency.tolerated { return "dependency \(dependency.id) failed" }
            if dependency.takesData {
                return "dependency \(dependency.id) failed, so it gave no output"
            }
            return nil
        case .dependencyProblem:
            return "dependency \(dependency.id) was skipped"
        case .cancelled:
            return "dependency \(dependency.id) was cancelled"
        case .skippedByCondition:
            // A false condition stops only those that need the data.
            return dependency.takesData ? "dependency \(dependency.id) was skipped" : nil
        case .skipped:
            // A skip caused by a failure stops everything downstream.
            return "dependency \(dependency.id) was skipped"
        case .groupSkipped(let group):
            // As if the step had depended on the group: its reason for not running decides.
            return reason(group, of: dependency)
        case .succeeded, .cached:
            return nil
        }
    }
}

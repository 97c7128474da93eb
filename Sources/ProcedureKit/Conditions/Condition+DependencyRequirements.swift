import Foundation

extension Condition {
    /// What a condition requires of its dependencies (those it waits for and those it
    /// produces) once they have finished, checked before it is evaluated, as in the original.
    /// A condition whose requirements are not met fails without being evaluated.
    public struct DependencyRequirements: OptionSet, Sendable {
        /// The requirements as bits.
        public let rawValue: UInt8

        /// Requirements from their bits.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// No dependency failed (finished with an error, or was cancelled with one): otherwise
        /// the condition fails with `conditionDependenciesFailed`.
        public static let noFailed = DependencyRequirements(rawValue: 1 << 0)
        /// With `noFailed`: a cancelled dependency does not count as failed.
        public static let ignoreFailedIfCancelled = DependencyRequirements(rawValue: 1 << 1)
        /// No dependency was cancelled: otherwise the condition fails with
        /// `conditionDependenciesCancelled`. Failures are checked first.
        public static let noCancelled = DependencyRequirements(rawValue: 1 << 2)
        /// `noFailed` and `noCancelled`.
        public static let noFailedOrCancelled: DependencyRequirements = [.noFailed, .noCancelled]
        /// Nothing is checked: the default.
        public static let none: DependencyRequirements = []
    }

    /// The error the condition fails with because its finished dependencies do not meet its
    /// ``dependencyRequirements``; `nil` if they do.
    func unmetDependencyRequirement() -> ProcedureKitError? {
        let requirements = dependencyRequirements
        guard !requirements.isEmpty else { return nil }
        let dependencies = dependencies + producedDependencies
        if requirements.contains(.noFailed) {
            let ignoresCancelled = requirements.contains(.ignoreFailedIfCancelled)
            let failed = dependencies.contains { dependency in
                guard let procedure = dependency as? Procedure, procedure.failed else {
                    return false
                }
                return !(ignoresCancelled && procedure.isCancelled)
            }
            if failed { return .conditionDependenciesFailed(condition: self) }
        }
        if requirements.contains(.noCancelled), dependencies.contains(where: \.isCancelled) {
            return .conditionDependenciesCancelled(condition: self)
        }
        return nil
    }

    /// The name, or the type's name.
    var displayName: String {
        name ?? String(describing: type(of: self))
    }
}

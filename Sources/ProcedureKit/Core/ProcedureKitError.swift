/// The error type of the procedure library.
///
/// Every error the library produces carries a ``Context`` saying what happened and, where
/// another error caused it, that error in ``error``. Messages read as sentences.
public struct ProcedureKitError: Error, CustomStringConvertible {

    /// What went wrong.
    public enum Context: Equatable, Sendable {
        /// A condition attached to the procedure failed.
        case conditionFailed
        /// A dependency of the named condition failed, against its dependency requirements.
        case conditionDependenciesFailed(String)
        /// A dependency of the named condition was cancelled, against its dependency
        /// requirements.
        case conditionDependenciesCancelled(String)
        /// At least one dependency finished with an error.
        case dependenciesFailed
        /// At least one dependency was cancelled.
        case dependenciesCancelled
        /// The dependency whose result was to be injected finished with an error.
        case dependencyFinishedWithError
        /// The dependency whose result was to be injected was cancelled.
        case dependencyCancelledWithError
        /// The group that owns the procedure was cancelled.
        case parentCancelledWithError
        /// A required value, such as an injected input, was not available.
        case requirementNotSatisfied
        /// The procedure did not finish within its time limit, in seconds.
        case timedOut(Double)
        /// The library was used in a way it does not support.
        case programmingError(String)
        /// Something went wrong, and nothing more is known.
        case unknown
    }

    /// What went wrong.
    public let context: Context

    /// The error that caused this one, if any.
    public let error: (any Error)?

    /// Creates an error with a context and an optional underlying error.
    public init(context: Context, error: (any Error)? = nil) {
        self.context = context
        self.error = error
    }

    /// A condition failed, optionally because of `error`.
    public static func conditionFailed(with error: (any Error)? = nil) -> ProcedureKitError {
        ProcedureKitError(context: .conditionFailed, error: error)
    }

    /// A dependency of `condition` failed, which its dependency requirements forbid.
    public static func conditionDependenciesFailed(condition: Condition) -> ProcedureKitError {
        ProcedureKitError(context: .conditionDependenciesFailed(condition.displayName))
    }

    /// A dependency of `condition` was cancelled, which its dependency requirements forbid.
    public static func conditionDependenciesCancelled(condition: Condition) -> ProcedureKitError {
        ProcedureKitError(context: .conditionDependenciesCancelled(condition.displayName))
    }

    /// At least one dependency finished with an error.
    public static func dependenciesFailed() -> ProcedureKitError {
        ProcedureKitError(context: .dependenciesFailed)
    }

    /// At least one dependency was cancelled.
    public static func dependenciesCancelled() -> ProcedureKitError {
        ProcedureKitError(context: .dependenciesCancelled)
    }

    /// The dependency finished with `error`.
    public static func dependency(finishedWithError error: (any Error)?) -> ProcedureKitError {
        ProcedureKitError(context: .dependencyFinishedWithError, error: error)
    }

    /// The dependency was cancelled with `error`.
    public static func dependency(cancelledWithError error: (any Error)?) -> ProcedureKitError {
        ProcedureKitError(context: .dependencyCancelledWithError, error: error)
    }

    /// The parent group was cancelled with `error`.
    public static func parent(cancelledWithError error: (any Error)?) -> ProcedureKitError {
        ProcedureKitError(context: .parentCancelledWithError, error: error)
    }

    /// A required value was not available.
    public static func requirementNotSatisfied() -> ProcedureKitError {
        ProcedureKitError(context: .requirementNotSatisfied)
    }

    /// The procedure did not finish within `interval` seconds.
    public static func timedOut(after interval: Double) -> ProcedureKitError {
        ProcedureKitError(context: .timedOut(interval))
    }

    /// The library was used in a way it does not support, for `reason`.
    public static func programmingError(reason: String) -> ProcedureKitError {
        ProcedureKitError(context: .programmingError(reason))
    }

    /// Something went wrong, and nothing more is known.
    public static let unknown = ProcedureKitError(context: .unknown)

    /// The error as a sentence, such as "The procedure timed out after 2 s."
    public var description: String {
        let sentence: String
        switch context {
        case .conditionFailed: sentence = "A condition failed"
        case .conditionDependenciesFailed(let name):
            sentence = "A dependency of the condition \(name) failed"
        case .conditionDependenciesCancelled(let name):
            sentence = "A dependency of the condition \(name) was cancelled"
        case .dependenciesFailed: sentence = "A dependency failed"
        case .dependenciesCancelled: sentence = "A dependency was cancelled"
        case .dependencyFinishedWithError: sentence = "The dependency finished with an error"
        case .dependencyCancelledWithError: sentence = "The dependency was cancelled"
        case .parentCancelledWithError: sentence = "The parent group was cancelled"
        case .requirementNotSatisfied:
            sentence = "A requirement was not satisfied: no input was available"
        case .timedOut(let interval):
            sentence = "The procedure timed out after \(Self.format(seconds: interval))"
        case .programmingError(let reason): sentence = "Programming error: \(reason)"
        case .unknown: sentence = "An unknown error occurred"
        }
        guard let error else { return sentence + "." }
        return sentence + ": " + String(describing: error)
    }

    static func format(seconds: Double) -> String {
        if seconds.isFinite, seconds == seconds.rounded(), abs(seconds) < 1e15 {
            return "\(Int(seconds)) s"
        }
        return "\(seconds) s"
    }
}

extension ProcedureKitError: Equatable {
    /// Two library errors are equal when their contexts are; underlying errors are not compared.
    public static func == (lhs: ProcedureKitError, rhs: ProcedureKitError) -> Bool {
        lhs.context == rhs.context
    }
}

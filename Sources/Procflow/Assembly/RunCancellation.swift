import ProcedureKit

/// Why the run cancelled a step that was not at fault.
public struct RunCancellation: Error, CustomStringConvertible, Sendable {
    /// The reason, as the summary prints it.
    public let message: String

    /// The reason.
    public var description: String { message }
}

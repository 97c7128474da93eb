import ProcedureKit

/// Why the run cancelled a step that was not at fault.
public struct RunCancellation: Error, CustomStringConvertible, Sendable {
    public let message: String

    public var description: String { message }
}

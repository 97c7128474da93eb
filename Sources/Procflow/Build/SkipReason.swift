import ProcedureKit

/// Why a step did not run because of another: its cancellation error.
public struct SkipReason: Error, CustomStringConvertible, Sendable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

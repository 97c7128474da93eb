import ProcedureKit

/// Why a step did not run because of another: its cancellation error.
public struct SkipReason: Error, CustomStringConvertible, Sendable {
    /// The reason, as the summary prints it.
    public let message: String

    /// A skip for `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The reason.
    public var description: String { message }
}

import Foundation

/// Wraps any Foundation `Operation` in a procedure, so that it takes conditions and observers.
open class ComposedProcedure<T: Operation>: GroupProcedure, @unchecked Sendable {
    /// The wrapped operation.
    public let operation: T

    /// Wraps `operation`.
    public init(_ operation: T) {
        self.operation = operation
        super.init(operations: [operation])
        name = "Composed<\(operation.name ?? String(describing: T.self))>"
    }

    /// Wraps `operation`.
    public convenience init(operation: T) {
        self.init(operation)
    }
}

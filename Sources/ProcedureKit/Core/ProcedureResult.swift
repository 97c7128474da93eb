/// A value that may not be available yet.
public enum Pending<T> {
    /// The value is not available yet.
    case pending
    /// The value is available.
    case ready(T)

    /// The value, or `nil` while pending.
    public var value: T? {
        if case .ready(let value) = self { return value }
        return nil
    }

    /// Whether the value is still missing.
    public var isPending: Bool {
        if case .pending = self { return true }
        return false
    }

    /// Creates a ready value from an optional, pending when `nil`.
    public init(_ value: T?) {
        self = value.map { .ready($0) } ?? .pending
    }
}

extension Pending: Sendable where T: Sendable {}
extension Pending: Equatable where T: Equatable {}

/// The outcome of a procedure: a value or an error.
public enum ProcedureResult<T> {
    /// The procedure produced `value`.
    case success(T)
    /// The procedure failed with `error`.
    case failure(any Error)

    /// The value, or `nil` on failure.
    public var value: T? {
        if case .success(let value) = self { return value }
        return nil
    }

    /// The error, or `nil` on success.
    public var error: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// Returns the value, or throws the error.
    public func get() throws -> T {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }
}

extension ProcedureResult: Sendable where T: Sendable {}

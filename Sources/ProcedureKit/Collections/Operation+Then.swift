import Foundation

extension Operation {
    /// Makes `operation` wait for this one, as the original's `then(do:)` does.
    ///
    /// - Returns: both, in order, ready to add to a queue.
    public func then(do operation: Operation) -> [Operation] {
        operation.addDependency(self)
        return [self, operation]
    }

    /// Makes the operation `block` returns, if any, wait for this one.
    ///
    /// - Returns: this operation and the one made, in order; this one alone if none was.
    /// - Throws: what `block` throws.
    public func then(do block: () throws -> Operation?) rethrows -> [Operation] {
        guard let operation = try block() else { return [self] }
        return then(do: operation)
    }
}

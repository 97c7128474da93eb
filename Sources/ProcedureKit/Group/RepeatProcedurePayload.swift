import Foundation

/// What a ``RepeatProcedure`` makes each next procedure of: the operation, how long to wait
/// before it, and a block to configure it and the operations after it.
public struct RepeatProcedurePayload<T: Operation> {
    /// Prepares an operation before the repeat adds it.
    public typealias ConfigureBlock = @Sendable (T) -> Void

    /// The operation to run.
    public let operation: T
    /// How long to wait before running it, after the one before it finished; `nil` for no wait.
    public let delay: Delay?
    /// Replaces the repeat's configure block, which then prepares this operation and the ones
    /// after it; `nil` to keep the repeat's.
    public let configure: ConfigureBlock?

    /// Creates a payload.
    ///
    /// - Parameters:
    ///   - operation: the operation to run.
    ///   - delay: how long to wait before running it; `nil` for no wait.
    ///   - configure: replaces the repeat's configure block; `nil` to keep it.
    public init(operation: T, delay: Delay? = nil, configure: ConfigureBlock? = nil) {
        self.operation = operation
        self.delay = delay
        self.configure = configure
    }

    /// This payload with another delay.
    ///
    /// - Parameter newDelay: the delay of the new payload.
    /// - Returns: a payload of the same operation and configure block, with `newDelay`.
    public func set(delay newDelay: Delay?) -> RepeatProcedurePayload {
        RepeatProcedurePayload(operation: operation, delay: newDelay, configure: configure)
    }
}

extension RepeatProcedurePayload: Sendable where T: Sendable {}

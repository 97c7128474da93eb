import ProcedureKit

/// The JSON input and output of a step's procedure, kept under one mutex.
public struct StepPorts: Sendable {
    /// The input, once given.
    public var input: Pending<JSONValue> = .pending
    /// The output, once made.
    public var output: Pending<ProcedureResult<JSONValue>> = .pending

    /// Ports with nothing in them yet.
    public init() {}
}

/// A step's procedure that keeps its input and output in ``StepPorts``: the accessors are
/// written once, here.
public protocol StepPortsProcedure: InputProcedure, OutputProcedure
where Input == JSONValue, Output == JSONValue {
    /// The input and output.
    var ports: Locked<StepPorts> { get }
}

extension StepPortsProcedure {
    /// The input, once given.
    public var input: Pending<JSONValue> {
        get { ports.withLock { $0.input } }
        set { ports.withLock { $0.input = newValue } }
    }

    /// The output, once made.
    public var output: Pending<ProcedureResult<JSONValue>> {
        get { ports.withLock { $0.output } }
        set { ports.withLock { $0.output = newValue } }
    }
}

import ProcedureKit

/// The JSON input and output of a step's procedure, kept under one mutex.
struct StepPorts {
    var input: Pending<JSONValue> = .pending
    var output: Pending<ProcedureResult<JSONValue>> = .pending
}

/// A step's procedure that keeps its input and output in ``StepPorts``: the accessors are
/// written once, here.
protocol StepPortsProcedure: InputProcedure, OutputProcedure
where Input == JSONValue, Output == JSONValue {
    /// The input and output.
    var ports: Locked<StepPorts> { get }
}

extension StepPortsProcedure {
    var input: Pending<JSONValue> {
        get { ports.withLock { $0.input } }
        set { ports.withLock { $0.input = newValue } }
    }

    var output: Pending<ProcedureResult<JSONValue>> {
        get { ports.withLock { $0.output } }
        set { ports.withLock { $0.output = newValue } }
    }
}

/// A composed procedure takes the input of the procedure it wraps, as the original's does: what
/// is injected into it is the wrapped procedure's.
extension ComposedProcedure: InputProcedure where T: InputProcedure {
    /// The wrapped procedure's input.
    public var input: Pending<T.Input> {
        get { operation.input }
        set { operation.input = newValue }
    }
}

/// A composed procedure gives the output of the procedure it wraps, as the original's does (an
/// ``IgnoreErrorsProcedure`` of a failed procedure gives its failure as its output, though it
/// finishes without an error).
extension ComposedProcedure: OutputProcedure where T: OutputProcedure {
    /// The wrapped procedure's output.
    public var output: Pending<ProcedureResult<T.Output>> {
        get { operation.output }
        set { operation.output = newValue }
    }
}

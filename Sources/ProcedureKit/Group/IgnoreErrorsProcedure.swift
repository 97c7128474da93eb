/// Runs a procedure and finishes without an error whatever error the procedure finishes with.
///
/// The wrapped procedure keeps its own error, for whoever reads it; only the wrapper's outcome
/// changes. Cancelling the wrapper still cancels it with the error given, if any.
public final class IgnoreErrorsProcedure<T: Procedure>: ComposedProcedure<T>, @unchecked Sendable {
    // @unchecked Sendable: adds no state to ComposedProcedure's.

    /// Wraps `procedure`.
    public override init(_ procedure: T) {
        super.init(procedure)
        name = "IgnoreErrors<\(procedure.name ?? String(describing: T.self))>"
    }

    public override func child(_ child: Procedure, willFinishWithError error: (any Error)?) {
        super.child(child, willFinishWithError: nil)
    }
}

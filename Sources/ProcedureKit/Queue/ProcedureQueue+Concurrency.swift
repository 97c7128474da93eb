extension ProcedureQueue {
    /// Adds `procedure` and waits for it to finish; returns its output.
    ///
    /// Cancelling the awaiting task cancels the procedure.
    ///
    /// - Throws: the procedure's error; `CancellationError` if it was cancelled without one;
    ///   `ProcedureKitError.requirementNotSatisfied()` if it finished without an output.
    public func run<P: OutputProcedure>(_ procedure: P) async throws -> P.Output
    where P.Output: Sendable {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                procedure.addDidFinishBlockObserver { procedure, error in
                    continuation.resume(
                        with: Result {
                            if let error { throw error }
                            if let value = procedure.output.value { return try value.get() }
                            if procedure.isCancelled { throw CancellationError() }
                            throw ProcedureKitError.requirementNotSatisfied()
                        })
                }
                addOperation(procedure)
            }
        } onCancel: {
            procedure.cancel()
        }
    }

    /// Adds `procedure` and waits for it to finish.
    ///
    /// Cancelling the awaiting task cancels the procedure.
    ///
    /// - Throws: the procedure's error; `CancellationError` if it was cancelled without one.
    public func run<P: Procedure>(_ procedure: P) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Void, any Error>) in
                procedure.addDidFinishBlockObserver { procedure, error in
                    continuation.resume(
                        with: Result {
                            if let error { throw error }
                            if procedure.isCancelled { throw CancellationError() }
                        })
                }
                addOperation(procedure)
            }
        } onCancel: {
            procedure.cancel()
        }
    }
}

import Foundation

extension Procedure {
    /// Adds `operation` to this procedure's queue before this procedure finishes.
    ///
    /// Will-add observers run before the operation is added and did-add observers after, in
    /// turn with the procedure's other callbacks.
    ///
    /// - Throws: ``ProcedureKitError`` (`programmingError`) if the procedure is not in a queue
    ///   or has already been asked to finish.
    public final func produce(operation: Operation) throws {
        let queue = try queueForProducing()
        post(.work { [self] in addProduced(operation, to: queue) })
    }

    /// Adds `operation` to this procedure's queue before `event` happens.
    ///
    /// `event` is a token a will-execute or will-finish observer was given, or one read from
    /// ``pendingEvent``: the event waits until the operation is in the queue, however long
    /// after the event was announced this is called, and from whichever thread. Called from
    /// one of the procedure's own callbacks, the operation is added at once; from elsewhere,
    /// ahead of the procedure's other callbacks still to come. Will-add and did-add observers
    /// run as for ``produce(operation:)``.
    ///
    /// `event` may be another procedure's: that one then waits until the operation is added,
    /// which happens as for ``produce(operation:)``.
    ///
    /// - Parameters:
    ///   - operation: the operation to add.
    ///   - event: what must not happen before the operation is added.
    /// - Throws: ``ProcedureKitError`` (`programmingError`) if the procedure is not in a queue,
    ///   or, for another procedure's event, if it has already been asked to finish.
    public final func produce(operation: Operation, before event: PendingEvent) throws {
        let queue = event.procedure === self ? queue : try queueForProducing()
        guard let queue else { throw producingError("while it is in a queue") }
        runInTurn({ [self] in addProduced(operation, to: queue) }, before: event)
    }

    /// The queue to produce on, while the procedure is in one and not finishing.
    private func queueForProducing() throws -> ProcedureQueue {
        let queue = protected.withLock { protected -> ProcedureQueue? in
            guard !protected.isFinishRequested, protected.state < .finishing else { return nil }
            return protected.queue
        }
        guard let queue else { throw producingError("while it is in a queue and not finishing") }
        return queue
    }

    private func addProduced(_ operation: Operation, to queue: ProcedureQueue) {
        let observers = observers
        for observer in observers { observer.procedure(self, willAdd: operation) }
        queue.addOperation(operation)
        for observer in observers { observer.procedure(self, didAdd: operation) }
    }

    private func producingError(_ when: String) -> ProcedureKitError {
        ProcedureKitError.programmingError(
            reason: "\(name ?? "a procedure") can only produce operations \(when)")
    }
}

import Foundation

/// A moment in a procedure's life that an operation it produces can be added before.
public enum PendingEvent: Sendable {
    /// The call to `execute()`: produce from a will-execute observer, and the operation is in
    /// the queue before the work starts.
    case execute
    /// The procedure finishing: produce from a will-finish observer or from
    /// `procedureWillFinish(with:)`, and the operation is in the queue before did-finish
    /// observers run and dependents start (a group counts it as a child before it finishes).
    case finish
}

extension Procedure {
    /// Adds `operation` to this procedure's queue before this procedure finishes.
    ///
    /// Will-add observers run before the operation is added and did-add observers after, in
    /// turn with the procedure's other callbacks.
    ///
    /// - Throws: ``ProcedureKitError`` (`programmingError`) if the procedure is not in a queue
    ///   or has already been asked to finish.
    public final func produce(operation: Operation) throws {
        let queue = protected.withLock { protected -> ProcedureQueue? in
            guard !protected.isFinishRequested, protected.state < .finishing else { return nil }
            return protected.queue
        }
        guard let queue else { throw producingError("while it is in a queue and not finishing") }
        post(.work { [self] in addProduced(operation, to: queue) })
    }

    /// Adds `operation` to this procedure's queue before `event` happens.
    ///
    /// Called from one of the procedure's own callbacks, it adds the operation at once;
    /// called from elsewhere, before any of the procedure's events not yet begun. Will-add and
    /// did-add observers run as for ``produce(operation:)``.
    ///
    /// - Parameters:
    ///   - operation: the operation to add.
    ///   - event: what must not happen before the operation is added.
    /// - Throws: ``ProcedureKitError`` (`programmingError`) if the procedure is not in a queue,
    ///   or if `event` is under way or past (for `.finish` from elsewhere than the procedure's
    ///   callbacks: once it has begun finishing).
    public final func produce(operation: Operation, before event: PendingEvent) throws {
        guard let queue else { throw producingError("while it is in a queue") }
        let add: @Sendable () -> Void = { [self] in addProduced(operation, to: queue) }
        if CurrentProcedure.isHandling(self) {
            guard protected.withLock({ Self.isInTime(for: event, $0, fromCallback: true) }) else {
                throw producingError("before \(event) while that is still to come")
            }
            add()
        } else if !postFirst(add, if: { Self.isInTime(for: event, $0, fromCallback: false) }) {
            throw producingError("before \(event) while that is still to come")
        }
    }

    /// Whether an operation produced now can still be added before `event`.
    private static func isInTime(
        for event: PendingEvent, _ protected: Protected, fromCallback: Bool
    ) -> Bool {
        switch (event, fromCallback) {
        case (.execute, true): return protected.state == .pending || protected.isAnnouncingExecution
        case (.execute, false): return protected.state == .pending
        case (.finish, true): return protected.state < .finished
        case (.finish, false): return protected.state < .finishing
        }
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

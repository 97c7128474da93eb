/// The lifecycle of a procedure. It only moves forward, one step at a time, except that a
/// procedure cancelled before it starts goes from `pending` straight to `finishing`.
enum ProcedureState: Int, Comparable, Sendable {
    /// Created, not yet added to a queue.
    case initialized
    /// In a queue, waiting for dependencies, conditions, mutual exclusion and a free slot.
    case pending
    /// `execute()` has been called and `finish` has not yet been handled.
    case executing
    /// Will-finish callbacks are running.
    case finishing
    /// Done; the error, if any, is final.
    case finished

    func canTransition(to next: ProcedureState) -> Bool {
        switch (self, next) {
        case (.initialized, .pending), (.pending, .executing), (.pending, .finishing),
            (.executing, .finishing), (.finishing, .finished):
            return true
        default:
            return false
        }
    }

    static func < (lhs: ProcedureState, rhs: ProcedureState) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// Where a pending procedure is on its way to executing.
enum PendingPhase: Sendable {
    /// Waiting for its dependencies to finish.
    case waitingForDependencies
    /// Its conditions are being evaluated, each after its own dependencies (those it
    /// produces too) have finished.
    case evaluatingConditions
    /// Waiting for the mutual-exclusion categories it needs.
    case waitingForExclusivity
    /// In its queue's ready list, waiting for a free slot.
    case ready
}

/// What a procedure's status is, as callers see it.
public enum ProcedureStatus: String, Sendable {
    /// Not started: created, or in a queue waiting to start.
    case pending
    /// Started and not finished.
    case executing
    /// Cancelled, whether or not it has finished yet.
    case cancelled
    /// Finished with an error.
    case failed
    /// Finished without an error.
    case finished
}

import Foundation
import ProcedureKit

/// Reports each new attempt of a retry after the first, as the failed attempt ends, and the
/// wait before it.
struct RetryObserver: ProcedureObserver {
    let id: String
    let events: StepEvents

    func procedure(_ procedure: Procedure, willAdd newOperation: Operation) {
        if let pause = newOperation as? DelayProcedure {
            pause.addObserver(BackoffObserver(id: id, events: events, since: Date()))
            return
        }
        guard let retry = procedure as? any RetryAttempts, retry.attempt > 1 else { return }
        events.retried(
            id, attempt: retry.attempt, of: retry.maxAttempts, previous: retry.previousError)
    }
}

import Foundation
import ProcedureKit

/// Reports each new attempt of a retry after the first.
struct RetryObserver: ProcedureObserver {
    let id: String
    let events: StepEvents

    func procedure(_ procedure: Procedure, willAdd newOperation: Operation) {
        guard !(newOperation is DelayProcedure), let retry = procedure as? any RetryAttempts,
            retry.attempt > 1
        else { return }
        events.retried(
            id, attempt: retry.attempt, of: retry.maxAttempts, previous: retry.previousError)
    }
}

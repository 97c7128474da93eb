import ProcedureKit

/// Reports the start of one attempt of a retried step.
struct AttemptObserver: ProcedureObserver {
    let id: String
    let attempt: Int
    let events: StepEvents

    func will(execute procedure: Procedure) {
        events.started(id, attempt: attempt)
    }
}

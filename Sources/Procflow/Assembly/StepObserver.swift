import Foundation
import ProcedureKit

/// Reports a step's start and end, and the mutex wait before its start.
///
/// The end is reported as the step's procedure starts to finish, before the observers added
/// after this one (the wires that cancel receivers when a source gives no output): so a step's
/// end always comes before the events of the steps that depend on it.
struct StepObserver: ProcedureObserver {
    let id: String
    let events: StepEvents
    /// Whether the procedure's start is the step's first attempt's: false for a retry, whose
    /// attempts announce themselves.
    let announcesStart: Bool
    /// For a step with a mutex: when it became ready but for the mutex.
    let readiness: ReadinessClock?

    func will(execute procedure: Procedure) {
        if let since = readiness?.readySince { events.waited(id, .mutex, since: since) }
        if announcesStart { events.started(id, attempt: 1) }
    }

    func will(finish procedure: Procedure, with error: (any Error)?) {
        events.finished(id, procedure)
    }
}

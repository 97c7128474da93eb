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
    /// For a step built once what it waits for has started, or one such a step waits for:
    /// what is told when it starts and ends.
    var deferral: DeferredSteps? = nil

    func will(execute procedure: Procedure) {
        if let since = readiness?.readySince { events.waited(id, .mutex, since: since) }
        if announcesStart { events.started(id, attempt: 1) }
    }

    func did(execute procedure: Procedure) {
        // Once its command has started (a shell step's `execute` spawns it): what waits for it
        // is built while the command runs, not before.
        deferral?.reached(id)
    }

    func will(finish procedure: Procedure, with error: (any Error)?) {
        events.finished(id, procedure)
        // A step that never started: what waits for it is built now, to be skipped or
        // cancelled as it would have been.
        deferral?.reached(id)
    }

    func did(finish procedure: Procedure, with error: (any Error)?) {
        deferral?.ended(id)
    }
}

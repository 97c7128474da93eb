import Foundation
import ProcedureKit

/// Reports a step's start and end.
struct StepObserver: ProcedureObserver {
    let id: String
    let events: StepEvents
    /// Whether the procedure's start is the step's: not for an incremental step, which
    /// reports its start itself if it runs.
    var announcesStart = true

    func will(execute procedure: Procedure) {
        if announcesStart { events.started(id) }
    }

    func did(finish procedure: Procedure, with error: (any Error)?) {
        events.finished(id, procedure)
    }
}

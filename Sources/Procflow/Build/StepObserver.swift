import Foundation
import ProcedureKit

/// Reports a step's start and end.
struct StepObserver: ProcedureObserver {
    let id: String
    let events: StepEvents

    func will(execute procedure: Procedure) {
        events.started(id)
    }

    func did(finish procedure: Procedure, with error: (any Error)?) {
        events.finished(id, procedure)
    }
}

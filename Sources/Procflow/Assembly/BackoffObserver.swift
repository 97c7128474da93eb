import Foundation
import ProcedureKit

/// Reports a retry's wait between two attempts when it ends.
struct BackoffObserver: ProcedureObserver {
    let id: String
    let events: StepEvents
    /// When the wait began: as the retry added it, for it waits for nothing else.
    let since: Date

    func did(finish procedure: Procedure, with error: (any Error)?) {
        events.waited(id, .backoff, since: since)
    }
}

import Foundation
import ProcedureKit

/// Where the procedures of a run send what happens to steps.
protocol StepEvents: Sendable {
    func started(_ id: String)
    /// Why an incremental step runs, just before it starts.
    func explained(_ id: String, _ reason: String)
    func output(_ id: String, _ stream: ShellProcedure.Stream, _ lines: [Substring])
    func retried(_ id: String, attempt: Int, of: Int, previous: (any Error)?)
    func finished(_ id: String, _ procedure: Procedure)
}

import Foundation
import ProcedureKit

/// Where the procedures of a run send what happens to steps.
protocol StepEvents: Sendable {
    /// Attempt `attempt` (from 1) of the step starts running; for a group or a branch, it
    /// starts.
    func started(_ id: String, attempt: Int)
    /// Why an incremental step runs, just before it starts.
    func explained(_ id: String, _ reason: String)
    func output(_ id: String, _ stream: ShellProcedure.Stream, _ lines: [Substring])
    /// An attempt failed and attempt `attempt` of `of` will follow.
    func retried(_ id: String, attempt: Int, of: Int, previous: (any Error)?)
    /// The step waited for `wait` from `since` until now.
    func waited(_ id: String, _ wait: StepWait, since: Date)
    /// The branch `id` chose the case at `index` in its `cases`, or `otherwise` (`nil`).
    func chose(_ id: String, caseIndex: Int?)
    /// The step's procedure starts to finish: what became of it is settled.
    func finished(_ id: String, _ procedure: Procedure)
    /// Steps made while the run goes on (the instances of a `forEach`, with the steps they
    /// hold), each with the ids of the groups it is in, to be reported like the others under
    /// the `names` people call them by.
    func added(_ steps: [(id: String, path: [String])], names: [String: String])
}

import Foundation
import ProcedureKit

/// Where the procedures of a run send what happens to steps.
protocol StepEvents: Sendable {
    func started(_ id: String)
    func output(_ id: String, _ stream: ShellProcedure.Stream, _ lines: [Substring])
    func retried(_ id: String, attempt: Int, of: Int, previous: (any Error)?)
    func finished(_ id: String, _ procedure: Procedure)
    /// Steps made while the run goes on (the instances of a `forEach`, with the steps they
    /// hold), each with the ids of the groups it is in, to be reported like the others.
    func added(_ steps: [(id: String, path: [String])])
}

import Foundation
import ProcedureKit

/// A workflow group: a `GroupProcedure` with a JSON input bound to one child and a JSON output
/// bound from one child. The workflow's root is one too.
///
/// Only genuine failures of children become the group's error: skips, and failures of
/// children marked `continueOnError`, do not fail the group.
class StepGroupProcedure: GroupProcedure, StepPortsProcedure, @unchecked Sendable {
    // @unchecked Sendable: input and output live in `ports`, a `Locked` mutex.
    let ports = Locked(StepPorts())

    /// - Parameter tolerated: the ids of children whose failures are only warnings.
    init(children: [Operation], tolerated: Set<String>) {
        super.init(operations: children)
        transformChildErrorBlock = keepingFailures(tolerating: tolerated)
    }

    override func execute() {
        // A group without a bound output gives null, not nothing, so that it never looks like
        // a missing value.
        ports.withLock { if $0.output.isPending { $0.output = .ready(.success(.null)) } }
        super.execute()
    }
}

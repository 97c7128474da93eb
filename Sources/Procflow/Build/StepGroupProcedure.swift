import Foundation
import ProcedureKit

/// A workflow group: a `GroupProcedure` with a JSON input bound to one child and a JSON output
/// bound from one child. The workflow's root is one too.
///
/// Only genuine failures of children become the group's error: skips, and failures of
/// children marked `continueOnError`, do not fail the group.
class StepGroupProcedure: GroupProcedure, InputProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: input and output live in `values`, a `Locked` mutex.
    private let values = Locked(
        (input: Pending<JSONValue>.pending, output: Pending<ProcedureResult<JSONValue>>.pending))

    /// - Parameter tolerated: the ids of children whose failures are only warnings.
    init(children: [Operation], tolerated: Set<String>) {
        super.init(operations: children)
        transformChildErrorBlock = keepingFailures(tolerating: tolerated)
    }

    var input: Pending<JSONValue> {
        get { values.withLock { $0.input } }
        set { values.withLock { $0.input = newValue } }
    }

    var output: Pending<ProcedureResult<JSONValue>> {
        get { values.withLock { $0.output } }
        set { values.withLock { $0.output = newValue } }
    }

    override func execute() {
        // A group without a bound output gives null, not nothing, so that it never looks like
        // a missing value.
        values.withLock { if $0.output.isPending { $0.output = .ready(.success(.null)) } }
        super.execute()
    }
}

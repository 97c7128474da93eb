import Foundation
import ProcedureKit

/// A workflow group: a `GroupProcedure` with a JSON input bound to one child and a JSON output
/// bound from one child. The workflow's root is one too.
///
/// Only genuine failures of children become the group's error: skips, and failures of
/// children marked `continueOnError`, do not fail the group.
final class StepGroupProcedure: GroupProcedure, InputProcedure, OutputProcedure, @unchecked Sendable
{
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

/// A workflow branch: waits for the value it reads, then adds the procedures of the first case
/// whose value equals it (or of `otherwise`) as children — the seeds' branching group.
final class BranchProcedure: GroupProcedure, InputProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `values`, a `Locked` mutex.
    private let values = Locked(
        (
            input: Pending<JSONValue>.pending, output: Pending<ProcedureResult<JSONValue>>.pending,
            chosen: String?.none
        ))
    private let branch: Branch
    private let makeCase: @Sendable ([Step]) -> [Operation]

    /// - Parameter makeCase: builds the procedures of the chosen case.
    init(
        branch: Branch, tolerated: Set<String>,
        makeCase: @escaping @Sendable ([Step]) -> [Operation]
    ) {
        self.branch = branch
        self.makeCase = makeCase
        super.init(operations: [])
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

    /// The case taken, as the summary describes it, once the branch has run.
    var chosenCase: String? {
        values.withLock { $0.chosen }
    }

    override func execute() {
        let value = input.value ?? .null
        let chosen = branch.cases.first { $0.equals == value }
        let steps = chosen?.steps ?? branch.otherwise
        values.withLock {
            $0.output = .ready(.success(.null))
            $0.chosen = chosen.map { "= \(JSONWriter.string($0.equals))" } ?? "otherwise"
        }
        addChildren(makeCase(steps))
        super.execute()
    }
}

/// A group's `transformChildErrorBlock`: keeps the errors of children that failed (and were not
/// tolerated) and of children cancelled from outside (`--fail-fast`, a signal), so that the group
/// is reported cut short too; drops the rest (skips, warnings).
private func keepingFailures(
    tolerating tolerated: Set<String>
) -> @Sendable (Operation, inout (any Error)?) -> Void {
    { child, error in
        let outcome = StepOutcome.classify(error: error, cancelled: child.isCancelled)
        if case .cancelled = outcome { return }
        if !outcome.isFailure || tolerated.contains(child.name ?? "") { error = nil }
    }
}

import Foundation
import ProcedureKit

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

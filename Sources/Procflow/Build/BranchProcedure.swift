import Foundation
import ProcedureKit

/// A workflow branch: waits for the value it reads, then adds the procedures of the first case
/// whose value equals it (or of `otherwise`) as children — the seeds' branching group. Its
/// output is `null`, as a group's without `outputFrom`.
final class BranchProcedure: StepGroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: the case chosen lives in `chosen`, a `Locked` mutex; the rest is
    // constant.
    private let chosen = Locked<String?>(nil)
    private let branch: Branch
    private let makeCase: @Sendable ([Step]) -> [Operation]

    /// - Parameter makeCase: builds the procedures of the chosen case.
    init(
        branch: Branch, tolerated: Set<String>,
        makeCase: @escaping @Sendable ([Step]) -> [Operation]
    ) {
        self.branch = branch
        self.makeCase = makeCase
        super.init(children: [], tolerated: tolerated)
    }

    /// The case taken, as the summary describes it, once the branch has run.
    var chosenCase: String? {
        chosen.withLock { $0 }
    }

    override func execute() {
        let value = input.value ?? .null
        let taken = branch.cases.first { $0.equals == value }
        chosen.withLock {
            $0 = taken.map { "= \(JSONWriter.string($0.equals))" } ?? "otherwise"
        }
        addChildren(makeCase(taken?.steps ?? branch.otherwise))
        super.execute()
    }
}

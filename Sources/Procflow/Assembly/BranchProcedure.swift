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
    private let onChoice: @Sendable (Int?) -> Void

    /// - Parameters:
    ///   - onChoice: told the index of the case chosen (`nil` for `otherwise`), before its
    ///     procedures are built.
    ///   - makeCase: builds the procedures of the chosen case.
    init(
        branch: Branch, tolerated: Set<String>, onChoice: @escaping @Sendable (Int?) -> Void,
        makeCase: @escaping @Sendable ([Step]) -> [Operation]
    ) {
        self.branch = branch
        self.onChoice = onChoice
        self.makeCase = makeCase
        super.init(children: [], tolerated: tolerated)
    }

    /// The case taken, as the summary describes it, once the branch has run.
    var chosenCase: String? {
        chosen.withLock { $0 }
    }

    override func execute() {
        let value = input.value ?? .null
        let index = branch.cases.firstIndex { $0.equals == value }
        let taken = index.map { branch.cases[$0] }
        chosen.withLock {
            $0 = taken.map { "= \(JSONWriter.string($0.equals))" } ?? "otherwise"
        }
        onChoice(index)
        addChildren(makeCase(taken?.steps ?? branch.otherwise))
        super.execute()
    }
}

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
    /// Whether the group lets go of its children as they end: for a group of many steps whose
    /// procedures nothing asks for once they have ended (those a run builds as it goes).
    /// ``children`` then holds the others, and a few that ended last.
    ///
    /// They are let go of once as many have ended as half those held after the last time, and
    /// at least 32: each child is looked at a few times, however many the group has.
    let releasesEndedChildren: Bool
    /// How many children have ended since the group last let go of them, and how many it held
    /// then.
    private let endedChildren = Locked((count: 0, held: 0))

    /// - Parameters:
    ///   - tolerated: the ids of children whose failures are only warnings.
    ///   - releasesEndedChildren: whether it lets go of its children as they end.
    init(children: [Operation], tolerated: Set<String>, releasesEndedChildren: Bool = false) {
        self.releasesEndedChildren = releasesEndedChildren
        super.init(operations: children)
        transformChildErrorBlock = keepingFailures(tolerating: tolerated)
    }

    override func execute() {
        // A group without a bound output gives null, not nothing, so that it never looks like
        // a missing value.
        ports.withLock { if $0.output.isPending { $0.output = .ready(.success(.null)) } }
        super.execute()
    }

    override func child(_ child: Procedure, willFinishWithError error: (any Error)?) {
        super.child(child, willFinishWithError: error)
        // Most groups keep their children: they take no lock here.
        guard releasesEndedChildren else { return }
        let release = endedChildren.withLock { ended -> Bool in
            ended.count += 1
            guard ended.count >= max(32, ended.held / 2) else { return false }
            ended.count = 0
            return true
        }
        guard release else { return }
        releaseFinishedChildren()
        let held = children.count
        endedChildren.withLock { $0.held = held }
    }
}

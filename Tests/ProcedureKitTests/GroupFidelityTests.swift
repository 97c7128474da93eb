import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

@Suite("Group observers hear every child")
struct GroupChildAnnouncementTests {

    @Test func theChildrenAGroupStartsWithAreAnnounced() async {
        let events = Recorder<String>()
        let plain = BlockOperation {}
        plain.name = "plain"
        let group = GroupProcedure(operations: [TestProcedure(name: "first"), plain])
        group.addObserver(RecordingObserver(label: "G", events: events))
        ProcedureQueue().addOperation(group)
        await waitForFinish(group)
        #expect(
            events.all.filter { $0.contains(" add ") } == [
                "G will add first", "G will add plain", "G did add first", "G did add plain",
            ])
    }

    @Test func announcementsComeBetweenWillExecuteAndDidFinish() async {
        let events = Recorder<String>()
        let group = GroupProcedure(operations: [TestProcedure(name: "only")])
        group.addObserver(RecordingObserver(label: "G", events: events))
        ProcedureQueue().addOperation(group)
        await waitForFinish(group)
        let all = events.all
        let willExecute = all.firstIndex(of: "G will execute") ?? .max
        let willAdd = all.firstIndex(of: "G will add only") ?? .max
        let didFinish = all.firstIndex(of: "G did finish") ?? .max
        #expect(willExecute < willAdd && willAdd < didFinish)
    }
}

@Suite("Child errors are transformed before the group's override sees them")
struct ChildErrorTransformOrderTests {

    final class InspectingGroup: GroupProcedure, @unchecked Sendable {
        let seen = Recorder<String>()
        override func child(_ child: Procedure, willFinishWithError error: (any Error)?) {
            seen.append((error as? TestError)?.tag ?? "nil")
            super.child(child, willFinishWithError: error)
        }
    }

    @Test func theOverrideSeesTheTransformedError() async {
        let group = InspectingGroup(operations: [TestProcedure(error: TestError(tag: "raw"))])
        group.transformChildErrorBlock = { _, error in
            if error != nil { error = TestError(tag: "mapped") }
        }
        ProcedureQueue().addOperation(group)
        await waitForFinish(group)
        #expect(group.seen.all == ["mapped"])
        #expect(group.error as? TestError == TestError(tag: "mapped"))
    }

    @Test func anErrorTheTransformDropsReachesTheOverrideAsNil() async {
        let group = InspectingGroup(operations: [TestProcedure(error: TestError(tag: "raw"))])
        group.transformChildErrorBlock = { _, error in error = nil }
        ProcedureQueue().addOperation(group)
        await waitForFinish(group)
        #expect(group.seen.all == ["nil"])
        #expect(group.error == nil)
    }
}

@Suite("Children of a group cancelled before it starts")
struct CancelledUnstartedGroupTests {

    @Test func aChildAddedAfterCancelIsCancelledAndFinishes() async {
        let first = TestProcedure(name: "first")
        let group = GroupProcedure(operations: [first])
        group.cancel(with: TestError(tag: "stop"))
        let late = TestProcedure(name: "late")
        group.addChild(late)
        ProcedureQueue().addOperation(group)
        await waitForFinish(group)
        #expect(late.isCancelled)
        #expect(!late.didExecute)
        #expect(await eventually { late.isFinished && first.isFinished })
        let reason = late.error as? ProcedureKitError
        #expect(reason?.context == .parentCancelledWithError)
        #expect(reason?.error as? TestError == TestError(tag: "stop"))
    }

    @Test func aChildAddedAfterTheCancelledGroupFinishedIsCancelledAndFinishes() async {
        let group = GroupProcedure(operations: [])
        group.cancel()
        ProcedureQueue().addOperation(group)
        await waitForFinish(group)
        let late = TestProcedure()
        group.addChild(late)
        #expect(late.isCancelled)
        #expect(await eventually { late.isFinished })
        #expect(!late.didExecute)
    }

    @Test func plainOperationChildrenAreCancelledAndFinishToo() async {
        let ran = Recorder<String>()
        let plain = BlockOperation { ran.append("ran") }
        let group = GroupProcedure(operations: [plain])
        group.cancel()
        ProcedureQueue().addOperation(group)
        await waitForFinish(group)
        #expect(await eventually { plain.isFinished })
        #expect(plain.isCancelled)
        #expect(ran.all.isEmpty)
    }
}

import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

@Suite("GroupProcedure")
struct GroupProcedureTests {

    @Test func runsUntilItsLastChildFinishes() {
        let children = (0..<5).map { _ in DelayProcedure(by: 0.01) }
        let group = GroupProcedure(operations: children)
        ProcedureQueue().addOperation(group)
        waitForFinish(group)
        #expect(children.allSatisfy { $0.isFinished })
        #expect(group.error == nil)
    }

    @Test func anEmptyGroupFinishesAtOnce() {
        let group = GroupProcedure(operations: [])
        ProcedureQueue().addOperation(group)
        waitForFinish(group)
        #expect(group.status == .finished)
    }

    @Test func childrenAddedWhileRunningAreWaitedFor() {
        let gate = HeldProcedure()
        let late = DelayProcedure(by: 0.05)
        let group = GroupProcedure(operations: [gate])
        let events = Recorder<String>()
        group.addObserver(RecordingObserver(label: "G", events: events))
        ProcedureQueue().addOperation(group)
        gate.started.wait()
        late.name = "late"
        group.addChild(late)
        gate.release()
        waitForFinish(group)
        #expect(late.isFinished)
        #expect(events.all.contains("G will add late"))
        #expect(events.all.contains("G did add late"))
        #expect(group.children.count == 2)
    }

    @Test func operationsProducedByChildrenBecomeChildren() {
        final class Producer: Procedure, @unchecked Sendable {
            let produced = DelayProcedure(by: 0.05)
            override func execute() {
                try? produce(operation: produced)
                finish()
            }
        }
        let producer = Producer()
        let group = GroupProcedure(operations: [producer])
        ProcedureQueue().addOperation(group)
        waitForFinish(group)
        #expect(producer.produced.isFinished)
        #expect(group.children.count == 2)
    }

    @Test func theFirstChildErrorBecomesTheGroupsError() {
        let first = TestProcedure(name: "first", error: TestError(tag: "first"))
        let second = TestProcedure(name: "second", error: TestError(tag: "second"))
        second.addDependency(first)
        let group = GroupProcedure(operations: [first, second])
        ProcedureQueue().addOperation(group)
        waitForFinish(group)
        #expect(group.error as? TestError == TestError(tag: "first"))
        #expect(second.didExecute)
    }

    @Test func transformChildErrorBlockMapsAndDropsErrors() {
        let mapped = GroupProcedure(operations: [TestProcedure(error: TestError(tag: "raw"))])
        mapped.transformChildErrorBlock = { _, error in
            if error != nil { error = TestError(tag: "mapped") }
        }
        let dropped = GroupProcedure(operations: [TestProcedure(error: TestError(tag: "raw"))])
        dropped.transformChildErrorBlock = { _, error in error = nil }
        let queue = ProcedureQueue()
        queue.addOperations(mapped, dropped)
        waitUntilIdle(queue)
        #expect(mapped.error as? TestError == TestError(tag: "mapped"))
        #expect(dropped.error == nil)
        #expect(dropped.status == .finished)
    }

    @Test func plainOperationChildren() {
        let ran = Recorder<String>()
        let block = BlockOperation { ran.append("block") }
        let async = AsyncOperation(label: "async", events: ran)
        async.addDependency(block)
        let group = GroupProcedure(operations: [async, block])
        ProcedureQueue().addOperation(group)
        waitForFinish(group)
        #expect(ran.all == ["block", "async async"])
    }

    @Test func cancellingARunningGroupCancelsChildrenInEveryState() {
        let finished = TestProcedure(name: "finished")
        let executing = HeldProcedure()
        executing.name = "executing"
        let waiting = TestProcedure(name: "waiting")
        waiting.addDependency(executing)
        let suspendedBehindLimit = TestProcedure(name: "ready")
        let plain = BlockOperation {}
        plain.addDependency(executing)
        let group = GroupProcedure(operations: [
            finished, executing, waiting, suspendedBehindLimit, plain,
        ])
        group.maxConcurrentOperationCount = 1
        ProcedureQueue().addOperation(group)
        executing.started.wait()
        #expect(eventually { finished.isFinished })
        group.cancel(with: TestError(tag: "stop"))
        // The executing child keeps the group from finishing until it finishes.
        usleep(20_000)
        #expect(!group.isFinished)
        executing.release()
        waitForFinish(group)
        #expect(group.error as? TestError == TestError(tag: "stop"))
        #expect(!finished.isCancelled)
        for child in [executing, waiting] as [Procedure] {
            #expect(child.isCancelled)
            let error = child.error as? ProcedureKitError
            #expect(error?.context == .parentCancelledWithError)
            #expect(error?.error as? TestError == TestError(tag: "stop"))
        }
        #expect(!waiting.didExecute)
        #expect(plain.isCancelled && plain.isFinished)
        #expect(group.children.allSatisfy { $0.isFinished })
    }

    @Test func cancellingAGroupBeforeItStartsCancelsItsChildren() {
        let child = TestProcedure()
        let group = GroupProcedure(operations: [child])
        group.cancel()
        ProcedureQueue().addOperation(group)
        waitForFinish(group)
        #expect(child.isCancelled)
        #expect(!child.didExecute)
        #expect(group.error == nil)
    }

    @Test func childrenAddedToACancelledGroupAreCancelled() {
        let gate = HeldProcedure()
        let group = GroupProcedure(operations: [gate])
        ProcedureQueue().addOperation(group)
        gate.started.wait()
        group.cancel()
        let late = TestProcedure()
        group.addChild(late)
        gate.release()
        waitForFinish(group)
        #expect(late.isCancelled)
        #expect(!late.didExecute)
    }

    @Test func nestedGroupsFinishInsideOut() {
        let events = Recorder<String>()
        let leaf = TestProcedure(name: "leaf", events: events)
        let inner = GroupProcedure(operations: [leaf])
        let outer = GroupProcedure(operations: [inner])
        inner.addDidFinishBlockObserver { _, _ in events.append("inner finished") }
        outer.addDidFinishBlockObserver { _, _ in events.append("outer finished") }
        ProcedureQueue().addOperation(outer)
        waitForFinish(outer)
        #expect(events.all == ["execute leaf", "inner finished", "outer finished"])
    }

    @Test func aChildErrorRisesThroughNestedGroups() {
        let leaf = TestProcedure(error: TestError(tag: "deep"))
        let outer = GroupProcedure(operations: [GroupProcedure(operations: [leaf])])
        ProcedureQueue().addOperation(outer)
        waitForFinish(outer)
        #expect(outer.error as? TestError == TestError(tag: "deep"))
    }

    @Test func suspendingAGroupHoldsItsChildren() {
        let child = TestProcedure()
        let group = GroupProcedure(operations: [child])
        group.isSuspended = true
        ProcedureQueue().addOperation(group)
        usleep(20_000)
        #expect(!child.didExecute)
        #expect(group.isExecuting)
        group.isSuspended = false
        waitForFinish(group)
        #expect(child.didExecute)
    }

    @Test func theGroupLimitsItsChildrensConcurrency() {
        let probe = ConcurrencyProbe()
        let group = GroupProcedure(
            operations: (0..<6).map { _ in probe.procedure(stayingUntilPeak: 2) })
        group.maxConcurrentOperationCount = 2
        ProcedureQueue().addOperation(group)
        waitForFinish(group, timeout: 60)
        #expect(probe.peak == 2)
    }

    @Test func aGroupAndItsChildSharingACategoryDoNotDeadlock() {
        let category = uniqueCategory()
        let child = TestProcedure()
        child.addCondition(MutuallyExclusive<Procedure>(category: category))
        let group = GroupProcedure(operations: [child])
        group.addCondition(MutuallyExclusive<Procedure>(category: category))
        let other = TestProcedure(name: "other")
        other.addCondition(MutuallyExclusive<Procedure>(category: category))
        let queue = ProcedureQueue()
        queue.addOperations(group, other)
        waitUntilIdle(queue)
        #expect(child.didExecute)
        #expect(other.didExecute)
        #expect(group.error == nil)
    }

    @Test func theGroupKeepsOthersOutWhileItsChildrenRun() {
        let category = uniqueCategory()
        let child = HeldProcedure()
        child.addCondition(MutuallyExclusive<Procedure>(category: category))
        let group = GroupProcedure(operations: [child])
        group.addCondition(MutuallyExclusive<Procedure>(category: category))
        let outsider = TestProcedure()
        outsider.addCondition(MutuallyExclusive<Procedure>(category: category))
        let queue = ProcedureQueue()
        queue.addOperation(group)
        child.started.wait()
        queue.addOperation(outsider)
        usleep(20_000)
        #expect(!outsider.didExecute)
        child.release()
        waitUntilIdle(queue)
        #expect(outsider.didExecute)
    }

    @Test func aTimeoutCancelsTheGroupAndItsChildren() {
        let slow = DelayProcedure(by: 60)
        let group = GroupProcedure(operations: [slow])
        group.addObserver(TimeoutObserver(by: 0.05))
        ProcedureQueue().addOperation(group)
        waitForFinish(group)
        #expect(group.error as? ProcedureKitError == .timedOut(after: 0.05))
        #expect(slow.isCancelled)
    }

    @Test func composedProcedureGivesAPlainOperationConditionsAndObservers() {
        let ran = Recorder<String>()
        let composed = ComposedProcedure(BlockOperation { ran.append("ran") })
        let skipped = ComposedProcedure(operation: BlockOperation { ran.append("skipped ran") })
        skipped.addCondition(FalseCondition())
        let finished = Recorder<String>()
        composed.addDidFinishBlockObserver { procedure, _ in
            finished.append(procedure.operation.isFinished ? "finished" : "not finished")
        }
        let queue = ProcedureQueue()
        queue.addOperations(composed, skipped)
        waitUntilIdle(queue)
        #expect(ran.all == ["ran"])
        #expect(finished.all == ["finished"])
        #expect(skipped.isCancelled)
    }

    @Test func groupsNestedTenThousandDeepRunAndAreReleased() {
        weak var weakOuter: GroupProcedure?
        do {
            var group = GroupProcedure(operations: [TestProcedure()])
            for _ in 0..<10_000 { group = GroupProcedure(operations: [group]) }
            weakOuter = group
            let queue = ProcedureQueue()
            queue.addOperation(group)
            waitUntilIdle(queue, timeout: 120)
            #expect(group.isFinished)
            #expect(group.error == nil)
        }
        #expect(eventually { weakOuter == nil })
    }

    @Test func cancellingGroupsNestedTenThousandDeep() {
        let gate = HeldProcedure()
        var group = GroupProcedure(operations: [gate])
        for _ in 0..<10_000 { group = GroupProcedure(operations: [group]) }
        ProcedureQueue().addOperation(group)
        #expect(gate.started.wait(timeout: .now() + 60) == .success)
        group.cancel()
        // The cancellation travels down all 10,000 levels to the innermost child.
        #expect(eventually(timeout: 60) { gate.isCancelled })
        gate.release()
        waitForFinish(group, timeout: 120)
        #expect(group.isCancelled)
    }

    /// A group lets go of its finished children when asked, and keeps the others.
    @Test func releasingFinishedChildrenLetsGoOfThemOnly() {
        let gate = HeldProcedure()
        var done: BlockProcedure? = BlockProcedure {}
        weak let released = done
        let group = GroupProcedure(operations: [gate, done!])
        done = nil
        ProcedureQueue().addOperation(group)
        gate.started.wait()
        #expect(eventually { released?.isFinished == true })
        group.releaseFinishedChildren()
        // The queue lets go of it as it ends; the group held it until asked.
        #expect(eventually { released == nil })
        #expect(group.children.count == 1 && group.children.first === gate)
        gate.release()
        waitForFinish(group)
        group.releaseFinishedChildren()
        #expect(group.children.isEmpty)
        #expect(group.error == nil)
    }

    /// A group makes its children's queue when it starts them and lets go of it once it has
    /// finished; its limit, set before, is the queue's.
    @Test func aGroupHoldsItsQueueOnlyWhileItRuns() {
        let gate = HeldProcedure()
        let group = GroupProcedure(operations: [gate])
        group.maxConcurrentOperationCount = 1
        #expect(group.groupState.withLock { $0.queue } == nil)
        ProcedureQueue().addOperation(group)
        gate.started.wait()
        #expect(group.groupState.withLock { $0.queue }?.maxConcurrentOperationCount == 1)
        gate.release()
        waitForFinish(group)
        #expect(group.groupState.withLock { $0.queue } == nil)
        #expect(group.maxConcurrentOperationCount == 1)
    }
}

import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// `produce(operation:before:)` and `GroupProcedure.addChild(_:before:)` given a pending event;
/// the original's ProcedureTests "produce … before" and GroupTests "add child before", ported.
@Suite("produce(operation:before:)")
struct ProduceBeforeTests {

    /// Produces `produced` as it starts to finish, before the finish its own callback holds.
    final class ProducingAtTheEnd: Procedure, @unchecked Sendable {
        let produced = DelayProcedure(by: 0.05)
        let failure = Locked<(any Error)?>(nil)

        override func execute() { finish() }

        override func procedureWillFinish(with error: (any Error)?) {
            do {
                guard let pendingFinish = pendingEvent else { throw TestError(tag: "no token") }
                try produce(operation: produced, before: pendingFinish)
            } catch {
                failure.withLock { $0 = error }
            }
        }
    }

    /// What a will-add observer saw of the procedure that was to wait for the addition.
    @Test func fromWillFinishTheOperationIsAddedBeforeTheProcedureFinishes() async {
        let producer = ProducingAtTheEnd()
        let events = Recorder<String>()
        producer.addObserver(RecordingObserver(label: "P", events: events))
        let group = GroupProcedure(operations: [producer])
        ProcedureQueue().addOperation(group)
        await waitForFinish(group)
        #expect(producer.failure.withLock { $0 } == nil)
        #expect(producer.produced.isFinished)
        #expect(group.children.count == 2)
        let all = events.all
        #expect(
            (all.firstIndex(of: "P did add Delay for 0.05 seconds") ?? .max)
                < (all.firstIndex(of: "P did finish") ?? .max))
    }

    @Test func plainProduceIsRefusedOnceTheProcedureIsFinishing() async {
        final class Late: Procedure, @unchecked Sendable {
            let refused = Locked(false)
            override func execute() { finish() }
            override func procedureWillFinish(with error: (any Error)?) {
                refused.withLock { $0 = (try? produce(operation: TestProcedure())) == nil }
            }
        }
        let late = Late()
        ProcedureQueue().addOperation(late)
        await waitForFinish(late)
        #expect(late.refused.withLock { $0 })
    }

    @Test func fromWillExecuteTheOperationIsQueuedBeforeExecute() async {
        final class Checking: Procedure, @unchecked Sendable {
            let produced = TestProcedure()
            let seen = Locked(false)
            override func execute() {
                seen.withLock { $0 = produced.isEnqueued }
                finish()
            }
        }
        let procedure = Checking()
        procedure.addWillExecuteBlockObserver { procedure, pendingExecute in
            try? procedure.produce(operation: procedure.produced, before: pendingExecute)
        }
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        await waitUntilIdle(queue)
        #expect(procedure.seen.withLock { $0 })
        #expect(procedure.produced.didExecute)
    }

    @Test func anotherProceduresEventNeedsTheProducerInAQueue() {
        let holder = TestProcedure()
        let kept = Locked<PendingEvent?>(nil)
        holder.addWillExecuteBlockObserver { _, pendingExecute in
            kept.withLock { $0 = pendingExecute }
        }
        let announced = DispatchSemaphore(value: 0)
        holder.addWillExecuteBlockObserver { _ in announced.signal() }
        ProcedureQueue().addOperation(holder)
        announced.wait()
        do {
            let token = kept.withLock { $0 }!
            #expect(throws: ProcedureKitError.self) {
                try TestProcedure().produce(operation: TestProcedure(), before: token)
            }
        }
        kept.withLock { $0 = nil }
        waitForFinish(holder)
    }

    // MARK: - The original's ProcedureTests

    @Test func produceBeforeExecute() {
        let produced = TestProcedure(name: "ProducedOperation")
        let procedure = TestProcedure()
        let overlaps = OverlapDetector()
        procedure.addObserver(overlaps)
        let failure = Locked<(any Error)?>(nil)
        procedure.addWillExecuteBlockObserver { procedure, pendingExecute in
            do {
                try procedure.produce(operation: produced, before: pendingExecute)
            } catch {
                failure.withLock { $0 = error }
            }
        }
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure, produced)
        #expect(failure.withLock { $0 } == nil)
        #expect(produced.didExecute)
        #expect(procedure.didExecute)
        #expect(overlaps.overlaps == 0)
    }

    @Test func produceBeforeExecuteFromAsyncCode() {
        let produced = TestProcedure(name: "ProducedOperation")
        let procedure = TestProcedure()
        let overlaps = OverlapDetector()
        procedure.addObserver(overlaps)
        afterExecuteIsAnnounced(procedure) { pendingExecute in
            try? procedure.produce(operation: produced, before: pendingExecute)
        }
        let seen = seenAtWillAdd(of: produced, by: procedure, about: procedure)
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure, produced)
        #expect(seen.withLock { $0 } == SeenAtWillAdd())
        #expect(produced.didExecute)
        #expect(overlaps.overlaps == 0)
    }

    @Test func produceBeforeFinish() {
        let produced = TestProcedure(name: "ProducedOperation")
        let procedure = TestProcedure()
        let events = Recorder<String>()
        procedure.addObserver(RecordingObserver(label: "P", events: events))
        procedure.addWillFinishBlockObserver { procedure, _, pendingFinish in
            try? procedure.produce(operation: produced, before: pendingFinish)
        }
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure, produced)
        #expect(produced.didExecute)
        #expect(
            events.all.suffix(3) == [
                "P will add ProducedOperation", "P did add ProducedOperation", "P did finish",
            ])
    }

    @Test func produceBeforeFinishFromAsyncCode() {
        let produced = TestProcedure(name: "ProducedOperation")
        let procedure = TestProcedure()
        let overlaps = OverlapDetector()
        procedure.addObserver(overlaps)
        afterFinishIsAnnounced(procedure) { pendingFinish in
            try? procedure.produce(operation: produced, before: pendingFinish)
        }
        let seen = seenAtWillAdd(of: produced, by: procedure, about: procedure)
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure, produced)
        #expect(seen.withLock { $0 } == SeenAtWillAdd(executed: true, finished: false))
        #expect(produced.didExecute)
        #expect(overlaps.overlaps == 0)
    }

    /// The original's BlockProcedureTests: work done in `doBeforeEvent` precedes the finish.
    @Test func workInDoBeforeEventPrecedesTheFinish() {
        let dependency = TestProcedure()
        let procedure = TestProcedure()
        procedure.addDependency(dependency)
        let observed = Locked(false)
        procedure.addWillFinishBlockObserver { _, _, pendingFinish in
            pendingFinish.doBeforeEvent { observed.withLock { $0 = true } }
        }
        let seenAtDidFinish = Locked(false)
        procedure.addDidFinishBlockObserver { _, _ in
            seenAtDidFinish.withLock { $0 = observed.withLock { $0 } }
        }
        ProcedureQueue().addOperations([dependency, procedure])
        waitForFinish(dependency, procedure)
        #expect(procedure.didExecute)
        #expect(dependency.didExecute)
        #expect(seenAtDidFinish.withLock { $0 })
    }

    // MARK: - The original's GroupTests

    @Test func aGroupDoesNotFinishBeforeTheOperationsItsChildrenProduce() {
        let child = TestProcedure(name: "Child")
        let produced = DelayProcedure(by: 0.05)
        produced.addDependency(child)
        let group = GroupProcedure(operations: [child])
        child.addWillExecuteBlockObserver { child, pendingExecute in
            try? child.produce(operation: produced, before: pendingExecute)
        }
        ProcedureQueue().addOperation(group)
        waitForFinish(group)
        #expect(group.error == nil)
        #expect(produced.isFinished)
        #expect(group.children.count == 2)
        #expect(group.children.contains(child))
        #expect(group.children.contains(produced))
    }

    /// A group kept running by a held child, for children added to it from outside.
    private func runningGroup() -> (GroupProcedure, HeldProcedure) {
        let keeper = HeldProcedure()
        let group = GroupProcedure(operations: [keeper])
        ProcedureQueue().addOperation(group)
        keeper.started.wait()
        return (group, keeper)
    }

    @Test func addChildBeforeAnotherProceduresExecuteFromAsyncCode() {
        let (group, keeper) = runningGroup()
        let added = TestProcedure(name: "AddedChildOperation")
        let procedure = TestProcedure()
        afterExecuteIsAnnounced(procedure) { pendingExecute in
            group.addChild(added, before: pendingExecute)
        }
        let seen = seenAtWillAdd(of: added, by: group, about: procedure)
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(seen.withLock { $0 } == SeenAtWillAdd())
        keeper.release()
        waitForFinish(group)
        #expect(added.didExecute)
    }

    @Test func addChildBeforeAnotherProceduresFinishFromAsyncCode() {
        let (group, keeper) = runningGroup()
        let added = TestProcedure(name: "AddedChildOperation")
        let procedure = TestProcedure()
        afterFinishIsAnnounced(procedure) { pendingFinish in
            group.addChild(added, before: pendingFinish)
        }
        let seen = seenAtWillAdd(of: added, by: group, about: procedure)
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(seen.withLock { $0 } == SeenAtWillAdd(executed: true, finished: false))
        keeper.release()
        waitForFinish(group)
        #expect(added.didExecute)
    }
}

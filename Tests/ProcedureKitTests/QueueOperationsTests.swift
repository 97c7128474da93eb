import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// The queue's futures, its list of operations and `cancelAllOperations()` (issue 26).
@Suite("ProcedureQueue's operations")
struct QueueOperationsTests {

    @Test func addingReturnsAFutureAlreadySignalled() {
        let queue = ProcedureQueue()
        #expect(queue.addOperation(TestProcedure()).isSignalled)
        #expect(queue.addOperations([TestProcedure(), TestProcedure()]).isSignalled)
        #expect(queue.addOperations(TestProcedure()).isSignalled)
        #expect(queue.addOperation {}.isSignalled)
        #expect(queue.add(operation: TestProcedure()).isSignalled)
        #expect(queue.add(operations: [TestProcedure()]).isSignalled)
        #expect(queue.add(operations: TestProcedure()).isSignalled)
        #expect(queue.addOperations([TestProcedure()], waitUntilFinished: true).isSignalled)
        waitUntilIdle(queue)
    }

    /// The original's `test__delegate__operation_notifications`.
    @Test func theFutureOfAddingOperationsFollowsTheDelegatesAddCallbacks() {
        let delegate = RecordingDelegate()
        let queue = ProcedureQueue()
        queue.delegate = delegate
        let operation = BlockOperation {}
        operation.name = "op"
        let procedure = TestProcedure(name: "p")
        procedure.addDependency(operation)
        let added = DispatchSemaphore(value: 0)
        queue.addOperations([operation, procedure]).then(on: .global()) { added.signal() }
        #expect(added.wait(timeout: .now() + 10) == .success)
        #expect(delegate.events.all.contains("did add op"))
        #expect(delegate.events.all.contains("did add p"))
        waitUntilIdle(queue)
        #expect(delegate.events.all.contains("did finish op ok"))
        #expect(delegate.events.all.contains("did finish p ok"))
    }

    /// The original's `test__delegate__operationqueue_addoperation_block`.
    @Test func aBlockAddedToASuspendedQueueIsListedAsABlockOperation() {
        let delegate = RecordingDelegate()
        let queue = ProcedureQueue()
        queue.delegate = delegate
        queue.isSuspended = true
        let ran = Recorder<String>()
        queue.addOperation { ran.append("block") }
        #expect(queue.operations.count == 1)
        #expect(queue.operations.first is BlockOperation)
        queue.isSuspended = false
        waitUntilIdle(queue)
        #expect(ran.all == ["block"])
        #expect(delegate.events.all.contains("did finish  ok"))
        #expect(queue.operations.isEmpty)
    }

    @Test func operationsAreThoseNotFinishedInTheOrderAdded() {
        let queue = ProcedureQueue()
        let first = HeldProcedure()
        let second = HeldProcedure()
        let waiting = TestProcedure()
        waiting.addDependency(second)
        queue.addOperations(first, second, waiting)
        #expect(queue.operations == [first, second, waiting])
        #expect(second.started.wait(timeout: .now() + 10) == .success)
        second.release()
        waitForFinish(second, waiting)
        #expect(queue.operations == [first])
        // A later operation takes the place the finished ones left, and is listed after.
        let third = HeldProcedure()
        let fourth = HeldProcedure()
        queue.addOperations(third, fourth)
        #expect(queue.operations == [first, third, fourth])
        for procedure in [first, third, fourth] { procedure.release() }
        waitUntilIdle(queue)
        #expect(queue.operations.isEmpty)
        #expect(queue.operationCount == 0)
    }

    @Test func anOperationTakingTheFirstPlaceBackIsListedAfterThoseAddedBefore() {
        let queue = ProcedureQueue()
        let first = HeldProcedure()
        let second = HeldProcedure()
        queue.addOperations(first, second)
        #expect(first.started.wait(timeout: .now() + 10) == .success)
        first.release()
        waitForFinish(first)
        let third = HeldProcedure()
        queue.addOperation(third)
        #expect(queue.operations == [second, third])
        for procedure in [second, third] { procedure.release() }
        waitUntilIdle(queue)
        #expect(queue.operations.isEmpty)
    }

    /// The original's `test__enqueue_a_sequence_of_operations_deallocates_queue`: holding its
    /// operations until they finish, the queue keeps none alive, nor itself, once they have.
    @Test func aQueueIsReleasedOnceItsOperationsHaveFinished() {
        weak var weakQueue: ProcedureQueue?
        weak var weakPlain: Operation?
        let procedure = TestProcedure()
        do {
            let queue = ProcedureQueue()
            weakQueue = queue
            let plain = BlockOperation {}
            weakPlain = plain
            queue.addOperations(plain, procedure)
        }
        waitForFinish(procedure)
        // A worker may hold the queue for a moment after the last operation has finished.
        #expect(eventually { weakQueue == nil && weakPlain == nil })
    }

    @Test func cancelAllOperationsCancelsEveryOperationNotFinished() {
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        // Held until released, cancelled or not: its slot stays taken while the others are
        // cancelled.
        let running = HeldProcedure()
        let pending = TestProcedure()
        let ran = Recorder<String>()
        let plain = BlockOperation { ran.append("plain") }
        queue.addOperations(running, pending, plain)
        #expect(running.started.wait(timeout: .now() + 10) == .success)
        queue.cancelAllOperations()
        running.release()
        waitUntilIdle(queue)
        #expect(running.isCancelled)
        #expect(pending.isCancelled)
        #expect(!pending.didExecute)
        #expect(plain.isCancelled)
        #expect(ran.all.isEmpty)
    }

    @Test func cancelAllOperationsReachesWhatWaitsForDependencies() {
        let queue = ProcedureQueue()
        let outside = HeldProcedure()
        let waiting = TestProcedure()
        waiting.addDependency(outside)
        queue.addOperation(waiting)
        queue.cancelAllOperations()
        waitForFinish(waiting)
        #expect(waiting.isCancelled)
        #expect(!waiting.didExecute)
        #expect(queue.operations.isEmpty)
        #expect(!outside.isCancelled)
    }
}

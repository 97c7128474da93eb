import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// A procedure that records whether `execute()` ran where `isWhereItShould` says.
final class WhereExecuted: Procedure, @unchecked Sendable {
    // @unchecked Sendable: it adds constants to Procedure.
    let places = Recorder<Bool>()
    private let isWhereItShould: @Sendable () -> Bool

    init(_ isWhereItShould: @escaping @Sendable () -> Bool) {
        self.isWhereItShould = isWhereItShould
        super.init()
    }

    override func execute() {
        places.append(isWhereItShould())
        finish()
    }
}

/// A condition that answers `true`, then, before it returns, waits until `queue` (serial) has
/// run what was sent to it meanwhile: the procedure's start, sent there while this thread still
/// handles the procedure's events.
final class HoldingCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: the stored property is a constant.
    private let queue: DispatchQueue

    init(draining queue: DispatchQueue) {
        self.queue = queue
        super.init()
    }

    override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        completion(.success(true))
        queue.sync {}
    }
}

@Suite("A queue's underlying dispatch queue")
struct UnderlyingQueueTests {

    /// The original's `test__procedure_executes_on_underlying_queue_of_procedurequeue`.
    @Test func aProcedureExecutesOnTheUnderlyingQueue() {
        let target = RecognisableQueue("underlying", attributes: .concurrent)
        let queue = ProcedureQueue()
        queue.underlyingQueue = target.queue
        #expect(queue.underlyingQueue === target.queue)
        let procedures = (0..<20).map { _ in WhereExecuted { target.isCurrent } }
        queue.addOperations(procedures)
        waitUntilIdle(queue)
        #expect(procedures.allSatisfy { $0.places.all == [true] })
    }

    @Test func aPlainOperationStartsOnTheUnderlyingQueue() {
        let target = RecognisableQueue("underlying-plain")
        let queue = ProcedureQueue()
        queue.underlyingQueue = target.queue
        let places = Recorder<Bool>()
        queue.addOperation { places.append(target.isCurrent) }
        waitUntilIdle(queue)
        #expect(places.all == [true])
    }

    @Test func aStartHandledOnAnotherThreadIsSentToTheUnderlyingQueue() {
        // The procedure is ready while its condition's evaluation still handles its events on
        // the test's thread: the start the worker posts waits for that thread, which must send
        // it on to the underlying queue rather than execute there.
        let target = RecognisableQueue("underlying-redirect")
        let queue = ProcedureQueue()
        queue.underlyingQueue = target.queue
        let procedure = WhereExecuted { target.isCurrent }
        procedure.addCondition(HoldingCondition(draining: target.queue))
        queue.addOperation(procedure)
        waitForFinish(procedure)
        #expect(procedure.places.all == [true])
    }

    @Test func theLimitStillHoldsOnAConcurrentUnderlyingQueue() {
        let queue = ProcedureQueue(maxConcurrentOperationCount: 2)
        queue.underlyingQueue = DispatchQueue(label: "underlying-limit", attributes: .concurrent)
        let probe = ConcurrencyProbe()
        queue.addOperations((0..<8).map { _ in probe.procedure(stayingUntilPeak: 2) })
        waitUntilIdle(queue, timeout: 60)
        #expect(probe.peak == 2)
    }

    @Test func anIdleQueueMovesToAnotherUnderlyingQueueAndBack() {
        let first = RecognisableQueue("underlying-first")
        let queue = ProcedureQueue()
        queue.underlyingQueue = first.queue
        let before = WhereExecuted { first.isCurrent }
        queue.addOperation(before)
        waitUntilIdle(queue)
        let second = RecognisableQueue("underlying-second")
        queue.underlyingQueue = second.queue
        let after = WhereExecuted { second.isCurrent }
        queue.addOperation(after)
        waitUntilIdle(queue)
        queue.underlyingQueue = nil
        let back = WhereExecuted { !first.isCurrent && !second.isCurrent }
        queue.addOperation(back)
        waitUntilIdle(queue)
        #expect([before, after, back].map(\.places.all) == [[true], [true], [true]])
    }

    @Test func settingItWhileTheQueueHoldsOperationsIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let queue = ProcedureQueue()
            queue.isSuspended = true
            queue.addOperation(TestProcedure())
            queue.underlyingQueue = DispatchQueue(label: "too late")
        }
    }
}

/// `ProcedureQueue.main` runs on the main dispatch queue, which the test runner services.
///
/// On Linux the runner's `async` `main` ends in `dispatchMain()`, which retires the main
/// thread: the main queue (and the main actor) is then served by another thread, so these
/// tests check the queue, not `Thread.isMainThread`.
@Suite("The main procedure queue", .serialized)
struct MainProcedureQueueTests {
    private static let mainKey = DispatchSpecificKey<String>()

    init() {
        DispatchQueue.main.setSpecific(key: Self.mainKey, value: "main")
    }

    /// The original's `test__procedure_queue_main_has_underlyingqueue_main`.
    @Test func itsUnderlyingQueueIsTheMainQueueAndItRunsOneAtATime() {
        #expect(ProcedureQueue.main.underlyingQueue?.getSpecific(key: Self.mainKey) == "main")
        #expect(ProcedureQueue.main.maxConcurrentOperationCount == 1)
    }

    @Test func executeRunsOnTheMainQueueWhereTheMainActorRuns() async {
        let procedure = WhereExecuted { DispatchQueue.getSpecific(key: Self.mainKey) == "main" }
        ProcedureQueue.main.addOperation(procedure)
        await waitForFinish(procedure)
        #expect(procedure.places.all == [true])
        let onMainActor = await MainActor.run {
            DispatchQueue.getSpecific(key: Self.mainKey) == "main"
        }
        #expect(onMainActor)
    }

    @Test func proceduresRunOneAfterAnother() async {
        let procedures = (0..<4).map { _ in HeldProcedure() }
        let events = Recorder<String>()
        for (index, procedure) in procedures.enumerated() {
            procedure.addWillExecuteBlockObserver { _ in events.append("start \(index)") }
            procedure.addDidFinishBlockObserver { _, _ in events.append("finish \(index)") }
        }
        ProcedureQueue.main.addOperations(procedures)
        for procedure in procedures {
            procedure.release()
            await waitForFinish(procedure)
        }
        #expect(
            events.all == [
                "start 0", "finish 0", "start 1", "finish 1", "start 2", "finish 2", "start 3",
                "finish 3",
            ])
    }
}

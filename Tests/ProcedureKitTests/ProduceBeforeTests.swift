import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

@Suite("produce(operation:before:)")
struct ProduceBeforeTests {

    /// Produces `produced` as it starts to finish.
    final class ProducingAtTheEnd: Procedure, @unchecked Sendable {
        let produced = DelayProcedure(by: 0.05)
        let failure = Locked<(any Error)?>(nil)

        override func execute() { finish() }

        override func procedureWillFinish(with error: (any Error)?) {
            do {
                try produce(operation: produced, before: .finish)
            } catch {
                failure.withLock { $0 = error }
            }
        }
    }

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
        procedure.addWillExecuteBlockObserver { procedure in
            try? procedure.produce(operation: procedure.produced, before: .execute)
        }
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        await waitUntilIdle(queue)
        #expect(procedure.seen.withLock { $0 })
        #expect(procedure.produced.didExecute)
    }

    @Test func tooLateThrows() async {
        let procedure = TestProcedure()
        let queue = ProcedureQueue()
        #expect(throws: ProcedureKitError.self) {
            try procedure.produce(operation: TestProcedure(), before: .finish)
        }
        let gate = HeldProcedure()
        queue.addOperation(gate)
        gate.started.wait()
        #expect(throws: ProcedureKitError.self) {
            try gate.produce(operation: TestProcedure(), before: .execute)
        }
        gate.release()
        await waitForFinish(gate)
    }
}

import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// Records every event it hears, prefixed with its own label.
struct RecordingObserver: ProcedureObserver {
    let label: String
    let events: Recorder<String>

    func didAttach(to procedure: Procedure) { events.append("\(label) attach") }
    func will(execute procedure: Procedure) { events.append("\(label) will execute") }
    func did(execute procedure: Procedure) { events.append("\(label) did execute") }
    func did(cancel procedure: Procedure, with error: (any Error)?) {
        events.append("\(label) did cancel")
    }
    func procedure(_ procedure: Procedure, willAdd newOperation: Operation) {
        events.append("\(label) will add \(newOperation.name ?? "")")
    }
    func procedure(_ procedure: Procedure, didAdd newOperation: Operation) {
        events.append("\(label) did add \(newOperation.name ?? "")")
    }
    func will(finish procedure: Procedure, with error: (any Error)?) {
        events.append("\(label) will finish")
    }
    func did(finish procedure: Procedure, with error: (any Error)?) {
        events.append("\(label) did finish")
    }
}

/// Records its own hooks into the same list as the observers.
final class HookedProcedure: Procedure, @unchecked Sendable {
    let events: Recorder<String>

    init(events: Recorder<String>) {
        self.events = events
        super.init()
    }

    override func execute() {
        events.append("execute")
        finish()
    }

    override func procedureWillFinish(with error: (any Error)?) {
        events.append("procedureWillFinish")
    }

    override func procedureDidFinish(with error: (any Error)?) {
        events.append("procedureDidFinish")
    }
}

@Suite("Observers")
struct ObserverTests {

    @Test func eventsArriveInLifecycleOrderAndObserversInTheOrderAdded() {
        let events = Recorder<String>()
        let procedure = HookedProcedure(events: events)
        procedure.addObserver(RecordingObserver(label: "A", events: events))
        procedure.addObserver(RecordingObserver(label: "B", events: events))
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(
            events.all == [
                "A attach", "B attach",
                "A will execute", "B will execute",
                "execute",
                "A did execute", "B did execute",
                "procedureWillFinish",
                "A will finish", "B will finish",
                "procedureDidFinish",
                "A did finish", "B did finish",
            ])
    }

    @Test func isFinishedTurnsTrueBeforeDidFinishObserversAndWaitUntilFinishedAfterThem() {
        let gate = DispatchSemaphore(value: 0)
        let events = Recorder<String>()
        let procedure = TestProcedure()
        procedure.addDidFinishBlockObserver { _, _ in
            gate.wait()
            events.append("did finish")
        }
        ProcedureQueue().addOperation(procedure)
        #expect(eventually { procedure.isFinished })
        #expect(events.all.isEmpty)
        gate.signal()
        waitForFinish(procedure)  // by waitUntilFinished()
        #expect(events.all == ["did finish"])
    }

    @Test func waitUntilFinishedWaitsForDidFinishObserversEvenOnceIsFinishedIsTrue() {
        let gate = DispatchSemaphore(value: 0)
        let procedure = TestProcedure()
        procedure.addDidFinishBlockObserver { _, _ in gate.wait() }
        ProcedureQueue().addOperation(procedure)
        #expect(eventually { procedure.isFinished })
        let returned = Locked(false)
        Thread {
            procedure.waitUntilFinished()
            returned.withLock { $0 = true }
        }.start()
        usleep(200_000)
        #expect(!returned.withLock { $0 }, "it returned while an observer was still running")
        gate.signal()
        #expect(eventually { returned.withLock { $0 } })
    }

    @Test func didFinishObserversRunBeforeDependentsStart() {
        let events = Recorder<String>()
        let first = TestProcedure(name: "first", events: events)
        let second = TestProcedure(name: "second", events: events)
        second.addDependency(first)
        first.addDidFinishBlockObserver { _, _ in
            usleep(5000)
            events.append("first did finish")
        }
        let queue = ProcedureQueue()
        queue.addOperations(first, second)
        waitUntilIdle(queue)
        #expect(events.all == ["execute first", "first did finish", "execute second"])
    }

    @Test func cancellingAPendingProcedureTellsObserversThenFinishes() {
        let events = Recorder<String>()
        let procedure = TestProcedure()
        procedure.addObserver(RecordingObserver(label: "A", events: events))
        procedure.addDependency(TestProcedure())  // never queued
        ProcedureQueue().addOperation(procedure)
        procedure.cancel(with: TestError())
        waitForFinish(procedure)
        #expect(events.all == ["A attach", "A did cancel", "A will finish", "A did finish"])
    }

    @Test func blockObserverHelpersPassTheConcreteType() {
        let procedure = TestProcedure(name: "typed")
        let seen = Recorder<String>()
        procedure.addWillExecuteBlockObserver { seen.append("will execute \($0.didExecute)") }
        procedure.addDidExecuteBlockObserver { seen.append("did execute \($0.didExecute)") }
        procedure.addWillFinishBlockObserver { procedure, _ in
            seen.append("will finish \(procedure.isFinished)")
        }
        procedure.addDidFinishBlockObserver { procedure, _ in
            seen.append("did finish \(procedure.isFinished)")
        }
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(
            seen.all == [
                "will execute false", "did execute true", "will finish false", "did finish true",
            ])
    }

    @Test func didCancelBlockObserverGetsTheError() {
        let procedure = TestProcedure()
        let errors = Recorder<String>()
        procedure.addDidCancelBlockObserver { _, error in
            errors.append((error as? TestError)?.tag ?? "none")
        }
        procedure.cancel(with: TestError(tag: "why"))
        #expect(errors.all == ["why"])
    }

    @Test func producedOperationsAreAddedBeforeTheProducerFinishes() {
        final class Producer: Procedure, @unchecked Sendable {
            let child = TestProcedure(name: "child")
            override func execute() {
                do {
                    try produce(operation: child)
                    finish()
                } catch {
                    finish(with: error)
                }
            }
        }
        let events = Recorder<String>()
        let producer = Producer()
        producer.addObserver(RecordingObserver(label: "A", events: events))
        let queue = ProcedureQueue()
        queue.addOperation(producer)
        waitUntilIdle(queue)
        #expect(producer.child.didExecute)
        #expect(producer.error == nil)
        #expect(
            events.all == [
                "A attach", "A will execute", "A did execute",
                "A will add child", "A did add child",
                "A will finish", "A did finish",
            ])
    }

    @Test func producingOutsideAQueueThrows() {
        let procedure = TestProcedure()
        #expect(throws: ProcedureKitError.self) {
            try procedure.produce(operation: TestProcedure())
        }
    }

    @Test func timeoutObserverCancelsWithTimedOut() {
        let procedure = DelayProcedure(by: 30)
        procedure.addObserver(TimeoutObserver(by: 0.05))
        let started = Date()
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(procedure.isCancelled)
        #expect(procedure.error as? ProcedureKitError == .timedOut(after: 0.05))
    }

    @Test func timeoutObserverLeavesAProcedureThatFinishesInTime() {
        let procedure = DelayProcedure(by: 0.01)
        procedure.addObserver(TimeoutObserver(by: 0.5))
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        usleep(600_000)
        #expect(!procedure.isCancelled)
        #expect(procedure.error == nil)
    }
}

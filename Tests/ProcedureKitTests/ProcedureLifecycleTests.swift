import Dispatch
import Foundation
import Synchronization
import Testing

@testable import ProcedureKit

@Suite("Procedure lifecycle")
struct ProcedureLifecycleTests {

    @Test func executesAndFinishes() {
        let queue = ProcedureQueue()
        let procedure = TestProcedure()
        #expect(procedure.status == .pending)
        #expect(!procedure.isEnqueued)
        queue.addOperation(procedure)
        #expect(procedure.isEnqueued)
        waitForFinish(procedure)
        #expect(procedure.executions.load(ordering: .relaxed) == 1)
        #expect(procedure.status == .finished)
        #expect(procedure.error == nil)
        #expect(!procedure.isExecuting)
    }

    @Test func finishingWithAnErrorFails() {
        let queue = ProcedureQueue()
        let procedure = TestProcedure(error: TestError(tag: "boom"))
        queue.addOperation(procedure)
        waitForFinish(procedure)
        #expect(procedure.status == .failed)
        #expect(procedure.failed)
        #expect(procedure.error as? TestError == TestError(tag: "boom"))
    }

    @Test(arguments: [
        (ProcedureState.initialized, ProcedureState.pending, true),
        (.pending, .executing, true),
        (.pending, .finishing, true),
        (.executing, .finishing, true),
        (.finishing, .finished, true),
        (.initialized, .executing, false),
        (.initialized, .finished, false),
        (.pending, .finished, false),
        (.executing, .pending, false),
        (.executing, .finished, false),
        (.finished, .executing, false),
        (.finished, .pending, false),
        (.finishing, .executing, false),
    ])
    func stateMachineAllowsOnlyForwardSteps(from: ProcedureState, to: ProcedureState, allowed: Bool)
    {
        #expect(from.canTransition(to: to) == allowed)
    }

    @Test func theFirstFinishWins() {
        final class DoubleFinish: Procedure, @unchecked Sendable {
            override func execute() {
                finish(with: TestError(tag: "first"))
                finish(with: TestError(tag: "second"))
                finish()
            }
        }
        let finishes = Recorder<String>()
        let procedure = DoubleFinish()
        procedure.addDidFinishBlockObserver { _, error in
            finishes.append((error as? TestError)?.tag ?? "none")
        }
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(procedure.error as? TestError == TestError(tag: "first"))
        usleep(20_000)
        #expect(finishes.all == ["first"])
    }

    @Test func theFirstCancelWins() {
        let cancels = Recorder<String>()
        let procedure = TestProcedure()
        procedure.addDidCancelBlockObserver { _, error in
            cancels.append((error as? TestError)?.tag ?? "none")
        }
        procedure.cancel(with: TestError(tag: "first"))
        procedure.cancel(with: TestError(tag: "second"))
        procedure.cancel()
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(cancels.all == ["first"])
        #expect(procedure.error as? TestError == TestError(tag: "first"))
        #expect(procedure.status == .cancelled)
    }

    @Test func aCancelErrorBeatsALaterFinishError() {
        let procedure = GatedFinish(finishError: TestError(tag: "finish"))
        ProcedureQueue().addOperation(procedure)
        procedure.started.wait()
        procedure.cancel(with: TestError(tag: "cancel"))
        procedure.release()
        waitForFinish(procedure)
        #expect(procedure.error as? TestError == TestError(tag: "cancel"))
    }

    @Test func aCancelWithoutErrorKeepsTheFinishError() {
        let procedure = GatedFinish(finishError: TestError(tag: "finish"))
        ProcedureQueue().addOperation(procedure)
        procedure.started.wait()
        procedure.cancel()
        procedure.release()
        waitForFinish(procedure)
        #expect(procedure.error as? TestError == TestError(tag: "finish"))
        #expect(procedure.status == .cancelled)
    }

    @Test func cancellingAfterFinishDoesNothing() {
        let cancels = Recorder<String>()
        let procedure = TestProcedure()
        procedure.addDidCancelBlockObserver { _, _ in cancels.append("cancel") }
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        procedure.cancel(with: TestError())
        #expect(!procedure.isCancelled)
        #expect(procedure.error == nil)
        #expect(cancels.all.isEmpty)
    }

    @Test func cancelledBeforeItIsQueuedItNeverExecutes() {
        let procedure = TestProcedure()
        procedure.cancel()
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(!procedure.didExecute)
        #expect(procedure.status == .cancelled)
    }

    @Test func cancelledWhileWaitingItFinishesWithoutItsDependencies() {
        let never = TestProcedure(name: "never-queued")
        let procedure = TestProcedure()
        procedure.addDependency(never)
        ProcedureQueue().addOperation(procedure)
        usleep(10_000)
        #expect(!procedure.isFinished)
        procedure.cancel()
        waitForFinish(procedure)
        #expect(!procedure.didExecute)
        #expect(!never.isFinished)
    }

    @Test func cancellingDoesNotInterruptExecute() {
        final class Looping: Procedure, @unchecked Sendable {
            let started = DispatchSemaphore(value: 0)
            let sawCancellation = Atomic<Bool>(false)
            let events = Recorder<String>()
            override func execute() {
                started.signal()
                while !isCancelled { usleep(100) }
                sawCancellation.store(true, ordering: .relaxed)
                events.append("execute returns")
                finish()
            }
            override func procedureDidCancel(with error: (any Error)?) {
                events.append("did cancel")
            }
        }
        let procedure = Looping()
        ProcedureQueue().addOperation(procedure)
        procedure.started.wait()
        procedure.cancel()
        waitForFinish(procedure)
        let sawCancellation = procedure.sawCancellation.load(ordering: .relaxed)
        #expect(sawCancellation)
        // The did-cancel hook waited for execute() to return.
        #expect(procedure.events.all == ["execute returns", "did cancel"])
    }

    @Test func finishBeforeStartingIsIgnored() {
        let procedure = TestProcedure()
        procedure.finish(with: TestError())
        #expect(!procedure.isFinished)
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(procedure.didExecute)
        #expect(procedure.error == nil)
    }

    @Test func nameDefaultsToTheTypeName() {
        let procedure = TestProcedure()
        #expect(procedure.name == "TestProcedure")
        procedure.name = "compile"
        #expect(procedure.name == "compile")
    }

    @Test func waitUntilFinishedAndCompletionBlockWork() {
        let procedure = TestProcedure()
        let completed = DispatchSemaphore(value: 0)
        procedure.completionBlock = { completed.signal() }
        ProcedureQueue().addOperation(procedure)
        procedure.waitUntilFinished()
        #expect(procedure.isFinished)
        #expect(completed.wait(timeout: .now() + 5) == .success)
    }

    @Test func executeAndCallbacksNeverOverlap() {
        // Cancels from other threads while execute() runs; a callback that ran concurrently
        // with execute() (or with another callback) would find `inside` already set.
        final class Exclusive: Procedure, @unchecked Sendable {
            let inside = Atomic<Bool>(false)
            let overlaps = Atomic<Int>(0)
            func enter() {
                if inside.exchange(true, ordering: .acquiringAndReleasing) {
                    overlaps.add(1, ordering: .relaxed)
                }
                usleep(200)
                inside.store(false, ordering: .releasing)
            }
            override func execute() {
                enter()
                usleep(2000)
                enter()
                finish()
            }
        }
        let queue = ProcedureQueue()
        var procedures: [Exclusive] = []
        for _ in 0..<50 {
            let procedure = Exclusive()
            let observer = BlockObserver(
                willExecute: { ($0 as! Exclusive).enter() },
                didExecute: { ($0 as! Exclusive).enter() },
                didCancel: { procedure, _ in (procedure as! Exclusive).enter() },
                willFinish: { procedure, _ in (procedure as! Exclusive).enter() },
                didFinish: { procedure, _ in (procedure as! Exclusive).enter() })
            procedure.addObserver(observer)
            procedure.addObserver(observer)
            procedures.append(procedure)
        }
        queue.addOperations(procedures)
        for procedure in procedures {
            DispatchQueue.global().async { procedure.cancel() }
        }
        waitUntilIdle(queue)
        #expect(procedures.allSatisfy { $0.isFinished })
        #expect(procedures.map { $0.overlaps.load(ordering: .relaxed) }.reduce(0, +) == 0)
    }
}

/// Starts, waits for `release()`, then finishes with `finishError`.
final class GatedFinish: Procedure, @unchecked Sendable {
    let started = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)
    private let finishError: TestError?

    init(finishError: TestError?) {
        self.finishError = finishError
        super.init()
    }

    override func execute() {
        started.signal()
        onThreadOfItsOwn { [self] in
            gate.wait()
            finish(with: finishError)
        }
    }

    func release() {
        gate.signal()
    }
}

@Suite("Seed spellings")
struct SeedSpellingTests {

    @Test func theOlderSpellingsStillWork() {
        let events = Recorder<String>()
        let first = TestProcedure(name: "first", events: events)
        let second = TestProcedure(name: "second", events: events)
        second.add(dependency: first)
        second.add(condition: TrueCondition())
        second.add(observer: RecordingObserver(label: "A", events: events))
        #expect(second.observers.count == 1)
        let third = TestProcedure(name: "third", events: events)
        third.add(dependencies: [second])
        let queue = ProcedureQueue()
        queue.add(operations: first, second, third)
        waitUntilIdle(queue)
        #expect(second.dependencies == [first])
        #expect(second.conditions.count == 1)
        // Observers are let go once the procedure finishes, so they cannot keep it alive.
        #expect(second.observers.isEmpty)
        #expect(
            events.all.filter { $0.hasPrefix("execute") } == [
                "execute first", "execute second", "execute third",
            ])
    }

    @Test func statusFollowsTheProcedure() {
        let procedure = HeldProcedure()
        #expect(procedure.status == .pending)
        ProcedureQueue().addOperation(procedure)
        procedure.started.wait()
        #expect(procedure.status == .executing)
        #expect(procedure.isExecuting)
        procedure.release()
        waitForFinish(procedure)
        #expect(procedure.status == .finished)
    }
}

import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// A procedure whose `execute()` blocks until released, then finishes: its callbacks wait.
final class BlockingProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: it adds constants to Procedure.
    let started = DispatchSemaphore(value: 0)
    let events: Recorder<String>
    private let gate = DispatchSemaphore(value: 0)

    init(events: Recorder<String>) {
        self.events = events
        super.init()
    }

    override func execute() {
        started.signal()
        gate.wait()
        events.append("execute returns")
        finish()
    }

    func release() {
        gate.signal()
    }
}

/// Schedules on `future` a block for a queue named `label`: it records whether it ran on that
/// queue, then signals.
private func scheduleRecordingItsQueue(on future: ProcedureFuture, _ label: String) -> (
    ran: DispatchSemaphore, onTarget: Recorder<Bool>
) {
    let target = RecognisableQueue(label)
    let ran = DispatchSemaphore(value: 0)
    let onTarget = Recorder<Bool>()
    future.then(on: target.queue) {
        onTarget.append(target.isCurrent)
        ran.signal()
    }
    return (ran, onTarget)
}

@Suite("ProcedureFuture and ProcedurePromise")
struct ProcedureFutureTests {

    @Test func aBlockRunsOnItsQueueOnceThePromiseIsCompleted() {
        let promise = ProcedurePromise()
        let (ran, onTarget) = scheduleRecordingItsQueue(on: promise.future, "future-target")
        #expect(!promise.future.isSignalled)
        #expect(ran.wait(timeout: .now() + 0.05) == .timedOut)
        promise.complete()
        #expect(promise.future.isSignalled)
        #expect(ran.wait(timeout: .now() + 10) == .success)
        #expect(onTarget.all == [true])
    }

    @Test func aBlockScheduledAfterCompletionStillRunsOnItsQueue() {
        let promise = ProcedurePromise()
        promise.complete()
        let (ran, onTarget) = scheduleRecordingItsQueue(on: promise.future, "future-late")
        #expect(ran.wait(timeout: .now() + 10) == .success)
        #expect(onTarget.all == [true])
    }

    @Test func completingTwiceRunsEachBlockOnce() {
        let promise = ProcedurePromise()
        let runs = Recorder<String>()
        let ran = DispatchSemaphore(value: 0)
        let serial = DispatchQueue(label: "future-twice")
        promise.future.then(on: serial) {
            runs.append("block")
            ran.signal()
        }
        promise.complete()
        promise.complete()
        #expect(ran.wait(timeout: .now() + 10) == .success)
        // Anything a second completion scheduled would be on the serial queue by now.
        serial.sync {}
        #expect(runs.all == ["block"])
    }

    @Test func aPromiseReleasedWithoutCompletingSignalsItsFutureWithoutATrap() {
        var promise: ProcedurePromise? = ProcedurePromise()
        let future = promise!.future
        let ran = DispatchSemaphore(value: 0)
        future.then(on: .global()) { ran.signal() }
        promise = nil
        #expect(ran.wait(timeout: .now() + 10) == .success)
        #expect(future.isSignalled)
    }

    @Test func aResultFutureHandsOverTheValueOrTheError() {
        let succeeding = ProcedurePromiseResult<Int>()
        let failing = ProcedurePromiseResult<Int>()
        let results = Recorder<String>()
        let done = DispatchSemaphore(value: 0)
        succeeding.future.then(on: .global()) { result in
            results.append("value \(result.value ?? -1)")
            done.signal()
        }
        failing.future.then(on: .global()) { result in
            results.append("error \((result.error as? TestError)?.tag ?? "none")")
            done.signal()
        }
        #expect(!succeeding.future.hasResult)
        succeeding.complete(withResult: 42)
        failing.complete(withFailure: TestError(tag: "no answer"))
        // Later completions do not count.
        succeeding.complete(withResult: 7)
        failing.complete(withResult: 7)
        for _ in 0..<2 { #expect(done.wait(timeout: .now() + 10) == .success) }
        #expect(Set(results.all) == ["value 42", "error no answer"])
        #expect(succeeding.future.hasResult)
    }

    @Test func aResultPromiseReleasedWithoutCompletingFailsWithUnfulfilledPromise() {
        var promise: ProcedurePromiseResult<String>? = ProcedurePromiseResult()
        let future = promise!.future
        let error = Recorder<(any Error)?>()
        let done = DispatchSemaphore(value: 0)
        future.then(on: .global()) { result in
            error.append(result.error)
            done.signal()
        }
        promise = nil
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(error.all.first as? ProcedureKitError.UnfulfilledPromise != nil)
        #expect(
            ProcedureKitError.UnfulfilledPromise().description
                == "The promise was released without being completed.")
    }

    @Test func aBlockOnAProcedureWaitsForTheCallbackRunningThen() {
        let events = Recorder<String>()
        let procedure = BlockingProcedure(events: events)
        procedure.addDidFinishBlockObserver { _, _ in events.append("did finish") }
        let promise = ProcedurePromise()
        let ran = DispatchSemaphore(value: 0)
        promise.future.then(on: procedure) {
            events.append("block")
            ran.signal()
        }
        ProcedureQueue().addOperation(procedure)
        #expect(procedure.started.wait(timeout: .now() + 10) == .success)
        // Signalled while execute() runs: the block waits for it to return.
        promise.complete()
        #expect(ran.wait(timeout: .now() + 0.05) == .timedOut)
        procedure.release()
        #expect(ran.wait(timeout: .now() + 10) == .success)
        waitForFinish(procedure)
        #expect(events.all == ["execute returns", "block", "did finish"])
    }

    @Test func aResultBlockOnAProcedureRunsInTurnWithItsCallbacks() {
        let events = Recorder<String>()
        let procedure = BlockingProcedure(events: events)
        let promise = ProcedurePromiseResult<String>()
        let ran = DispatchSemaphore(value: 0)
        promise.future.then(on: procedure) { result in
            events.append("block \(result.value ?? "")")
            ran.signal()
        }
        ProcedureQueue().addOperation(procedure)
        #expect(procedure.started.wait(timeout: .now() + 10) == .success)
        promise.complete(withResult: "ready")
        procedure.release()
        #expect(ran.wait(timeout: .now() + 10) == .success)
        waitForFinish(procedure)
        #expect(events.all == ["execute returns", "block ready"])
    }

    @Test func aCollectionsFutureIsSignalledOnceEveryFutureIs() {
        let promises = (0..<3).map { _ in ProcedurePromise() }
        let all = promises.map(\.future).future
        let ran = DispatchSemaphore(value: 0)
        all.then(on: .global()) { ran.signal() }
        promises[2].complete()
        promises[0].complete()
        #expect(!all.isSignalled)
        #expect(ran.wait(timeout: .now() + 0.05) == .timedOut)
        promises[1].complete()
        #expect(all.isSignalled)
        #expect(ran.wait(timeout: .now() + 10) == .success)
    }

    @Test func anEmptyCollectionsFutureIsSignalledAtOnce() {
        #expect([ProcedureFuture]().future.isSignalled)
    }
}

import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// The original's DelayProcedureTests, and the input the delay now is.
@Suite("DelayProcedure")
struct DelayProcedureTests {

    @Test func namedAfterItsInterval() {
        #expect(DelayProcedure(by: 1).name == "Delay for 1.0 seconds")
        #expect(DelayProcedure(delay: .by(1)).name == "Delay for 1.0 seconds")
    }

    @Test func namedAfterItsDate() {
        let date = Date()
        #expect(DelayProcedure(until: date).name == "Delay until \(date)")
    }

    @Test func namedDelayWithoutADelay() {
        #expect(DelayProcedure().name == "Delay")
        #expect(DelayProcedure().input.isPending)
    }

    @Test func theDelayIsItsInput() {
        let date = Date(timeIntervalSinceNow: 60)
        #expect(DelayProcedure(by: 2).input.value == .by(2))
        #expect(DelayProcedure(until: date).input.value == .until(date))
    }

    @Test func aNegativeIntervalFinishesAtOnce() {
        let delay = DelayProcedure(by: -9_000_000)
        ProcedureQueue().addOperation(delay)
        waitForFinish(delay)
        #expect(delay.isFinished)
        #expect(delay.error == nil)
    }

    @Test func theDistantPastFinishesAtOnce() {
        let delay = DelayProcedure(until: .distantPast)
        ProcedureQueue().addOperation(delay)
        waitForFinish(delay)
        #expect(delay.isFinished)
        #expect(delay.error == nil)
    }

    @Test func finishesAfterItsInterval() {
        let delay = DelayProcedure(by: 0.2)
        let started = Date()
        ProcedureQueue().addOperation(delay)
        waitForFinish(delay)
        #expect(Date().timeIntervalSince(started) >= 0.2)
        #expect(delay.error == nil)
    }

    @Test func finishesAtItsDate() {
        let date = Date(timeIntervalSinceNow: 0.2)
        let delay = DelayProcedure(until: date)
        ProcedureQueue().addOperation(delay)
        waitForFinish(delay)
        #expect(Date() >= date)
    }

    @Test func cancelledBeforeItStartsItNeverWaits() {
        let delay = DelayProcedure(by: 600)
        let started = Date()
        delay.cancel()
        ProcedureQueue().addOperation(delay)
        waitForFinish(delay)
        #expect(delay.isCancelled)
        #expect(Date().timeIntervalSince(started) < 300)
    }

    @Test func cancelledAsItExecutesItFinishesAtOnce() {
        let delay = DelayProcedure(by: 600)
        delay.addDidExecuteBlockObserver { $0.cancel() }
        let started = Date()
        ProcedureQueue().addOperation(delay)
        waitForFinish(delay)
        #expect(delay.isCancelled)
        #expect(Date().timeIntervalSince(started) < 300)
    }

    @Test func anEndlessDelayWaitsUntilCancelled() {
        let delay = DelayProcedure(by: .infinity)
        ProcedureQueue().addOperation(delay)
        #expect(eventually { delay.isExecuting })
        delay.cancel()
        waitForFinish(delay)
        #expect(delay.isCancelled)
    }

    @Test func withoutADelayItFailsAsTheOriginalDoes() {
        let delay = DelayProcedure()
        ProcedureQueue().addOperation(delay)
        waitForFinish(delay)
        #expect(delay.isCancelled)
        #expect((delay.error as? ProcedureKitError)?.context == .requirementNotSatisfied)
    }

    @Test func takesTheDelayADependencyOutputs() {
        let result = ResultProcedure { Delay.by(0.2) }
        let delay = DelayProcedure().injectResult(from: result)
        let started = Date()
        ProcedureQueue().addOperations(result, delay)
        waitForFinish(delay)
        #expect(Date().timeIntervalSince(started) >= 0.2)
        #expect(delay.error == nil)
        #expect(delay.name == "Delay")
    }

    @Test func takesAnIntervalMadeFromADependencysOutput() {
        let result = ResultProcedure { Delay.by(0.2) }
        let delay = DelayProcedure().injectDelay(from: result) { $0.interval }
        let started = Date()
        ProcedureQueue().addOperations(result, delay)
        waitForFinish(delay)
        #expect(Date().timeIntervalSince(started) >= 0.2)
        #expect(delay.input.value == .by(0.2))
    }

    @Test func takesADateMadeFromADependencysOutput() {
        let date = Date(timeIntervalSinceNow: 0.2)
        let result = ResultProcedure { date }
        let delay = DelayProcedure().injectDelay(from: result) { $0 }
        ProcedureQueue().addOperations(result, delay)
        waitForFinish(delay)
        #expect(Date() >= date)
        #expect(delay.input.value == .until(date))
    }

    @Test func aThrowingBlockCancelsTheDelay() {
        let result = ResultProcedure { 1 }
        let delay = DelayProcedure().injectDelay(from: result) { _ -> TimeInterval in
            throw TestError(tag: "no interval")
        }
        ProcedureQueue().addOperations(result, delay)
        waitForFinish(delay)
        #expect(delay.isCancelled)
        #expect(delay.error as? TestError == TestError(tag: "no interval"))
    }
}

@Suite("Delay")
struct DelayTests {

    @Test func describesItself() {
        let date = Date()
        #expect(Delay.by(1.5).description == "for 1.5 seconds")
        #expect(Delay.until(date).description == "until \(date)")
    }

    @Test func comparesIntervalsWithIntervalsAndDatesWithDates() {
        let now = Date()
        #expect(Delay.by(1) < .by(2))
        #expect(!(Delay.by(2) < .by(1)))
        #expect(Delay.until(now) < .until(now.addingTimeInterval(1)))
        #expect(!(Delay.by(1) < .until(now)))
        #expect(!(Delay.until(now) < .by(1)))
        #expect(Delay.by(1) == .by(1))
        #expect(Delay.by(1) != .until(now))
    }

    @Test func itsIntervalIsTheTimeLeft() {
        #expect(Delay.by(3).interval == 3)
        let left = Delay.until(Date(timeIntervalSinceNow: 60)).interval
        #expect(left > 30 && left <= 60)
        #expect(Delay.until(.distantPast).interval < 0)
    }
}

import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// A procedure that finishes itself, recording whether it was cancelled when it executed.
private final class SelfFinishing: Procedure, @unchecked Sendable {
    let events = Recorder<String>()

    override init() {
        super.init(disableAutomaticFinishing: true)
    }

    override func execute() {
        events.append(isCancelled ? "execute cancelled" : "execute")
        finish()
    }
}

@Suite("disableAutomaticFinishing")
struct AutomaticFinishingTests {

    @Test func aProcedureCancelledBeforeItIsQueuedStillExecutes() async {
        let procedure = SelfFinishing()
        procedure.cancel(with: TestError(tag: "early"))
        ProcedureQueue().addOperation(procedure)
        await waitForFinish(procedure)
        #expect(procedure.events.all == ["execute cancelled"])
        #expect(procedure.error as? TestError == TestError(tag: "early"))
    }

    @Test func aProcedureCancelledWhileWaitingExecutesWithoutWaitingFurther() async {
        let procedure = SelfFinishing()
        procedure.addDependency(TestProcedure())  // never queued, so never finishes
        ProcedureQueue().addOperation(procedure)
        procedure.cancel()
        await waitForFinish(procedure)
        #expect(procedure.events.all == ["execute cancelled"])
    }

    @Test func aWillExecuteObserverThatCancelsDoesNotStopExecute() async {
        let procedure = SelfFinishing()
        procedure.addWillExecuteBlockObserver { $0.cancel() }
        ProcedureQueue().addOperation(procedure)
        await waitForFinish(procedure)
        #expect(procedure.events.all == ["execute cancelled"])
    }

    @Test func byDefaultACancelledProcedureNeverExecutes() async {
        let procedure = TestProcedure()
        #expect(!procedure.isAutomaticFinishingDisabled)
        procedure.cancel()
        ProcedureQueue().addOperation(procedure)
        await waitForFinish(procedure)
        #expect(!procedure.didExecute)
    }
}

import Dispatch
import Testing

@testable import ProcedureKit

/// `BlockProcedure { this in … }`, whose block finishes the procedure itself, as the original's
/// does (issue 26, "API missing here").
@Suite("A BlockProcedure that finishes itself", .serialized)
struct SelfFinishingBlockProcedureTests {
    @Test func finishesWhenTheBlockSaysSo() {
        let procedure = BlockProcedure { this in
            DispatchQueue.global().async { this.finish(with: TestError(tag: "later")) }
        }
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(procedure.error as? TestError == TestError(tag: "later"))
    }

    @Test func isCancelledWithTimedOutIfItDoesNotFinishInTime() {
        #expect(BlockProcedure.defaultTimeoutInterval == 3)
        BlockProcedure.defaultTimeoutInterval = 0.1
        let procedure = BlockProcedure { _ in }
        BlockProcedure.defaultTimeoutInterval = 3
        procedure.addDidCancelBlockObserver { procedure, _ in procedure.finish() }
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(procedure.error as? ProcedureKitError == .timedOut(after: 0.1))
        #expect(BlockProcedure { print("returns") }.observers.isEmpty)
    }
}

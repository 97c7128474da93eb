import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

@Suite("BlockProcedure and DelayProcedure")
struct BlockAndDelayProcedureTests {

    @Test func blockProcedureRunsItsBlock() {
        let ran = Recorder<String>()
        let procedure = BlockProcedure { ran.append("ran") }
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(ran.all == ["ran"])
        #expect(procedure.error == nil)
    }

    @Test func aThrowingBlockFinishesWithItsError() {
        let procedure = BlockProcedure { throw TestError(tag: "thrown") }
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(procedure.error as? TestError == TestError(tag: "thrown"))
    }

    @Test func delayProcedureWaits() {
        let procedure = DelayProcedure(by: 0.1)
        let started = Date()
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(Date().timeIntervalSince(started) >= 0.1)
    }

    @Test func cancellingADelayFinishesItAtOnce() {
        let procedure = DelayProcedure(by: 60)
        let started = Date()
        ProcedureQueue().addOperation(procedure)
        #expect(eventually { procedure.isExecuting })
        procedure.cancel()
        waitForFinish(procedure)
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(procedure.status == .cancelled)
    }
}

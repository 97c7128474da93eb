import Foundation
import Testing

@testable import ProcedureKit

@Suite("Swift concurrency bridge")
struct ConcurrencyBridgeTests {

    @Test func returnsTheOutput() async throws {
        let value = try await ProcedureQueue().run(ResultProcedure { 42 })
        #expect(value == 42)
    }

    @Test func throwsTheError() async {
        await #expect(throws: TestError(tag: "bridge")) {
            try await ProcedureQueue().run(ResultProcedure<Int> { throw TestError(tag: "bridge") })
        }
        await #expect(throws: TestError(tag: "plain")) {
            try await ProcedureQueue().run(BlockProcedure { throw TestError(tag: "plain") })
        }
    }

    @Test func aSkippedProcedureThrowsCancellationError() async {
        let procedure = ResultProcedure { 1 }
        procedure.addCondition(FalseCondition())
        await #expect(throws: CancellationError.self) {
            try await ProcedureQueue().run(procedure)
        }
    }

    @Test func cancellingTheTaskCancelsTheProcedure() async {
        let procedure = DelayProcedure(by: 60)
        let task = Task { try await ProcedureQueue().run(procedure) }
        #expect(await eventually(timeout: 60) { procedure.isExecuting })
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(procedure.isCancelled)
        #expect(procedure.isFinished)
    }
}

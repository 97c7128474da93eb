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
        procedure.addCondition(BlockCondition { false })
        await #expect(throws: CancellationError.self) {
            try await ProcedureQueue().run(procedure)
        }
    }

    @Test func cancellingTheTaskCancelsTheProcedure() async {
        let procedure = DelayProcedure(by: 60)
        // Waits for the procedure to execute with no time limit of its own: the task starts
        // only once the suites' other tests leave one of Swift's few cooperative threads free
        // (a fixed budget competed with the whole run's length, and lost under TSan).
        let (executed, continuation) = AsyncStream<Void>.makeStream()
        procedure.addDidExecuteBlockObserver { _ in continuation.finish() }
        let task = Task { try await ProcedureQueue().run(procedure) }
        for await _ in executed {}
        #expect(procedure.isExecuting)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(procedure.isCancelled)
        #expect(procedure.isFinished)
    }
}

import Dispatch
import Testing

@testable import ProcedureKit

/// Conditions are decided as soon as one fails, as in the original: the procedure does not wait
/// for the dependencies other conditions produce, and those still running are cancelled (issue
/// 26, item 7).
@Suite("Deciding conditions early")
struct ConditionShortCircuitTests {
    @Test func aFailureDecidesWithoutWaitingForAnotherConditionsProducedDependency() {
        let longRunning = RunsUntilCancelled()
        let waiting = TrueCondition()
        waiting.produceDependency(longRunning)
        let procedure = TestProcedure()
        procedure.addCondition(waiting)
        procedure.addCondition(
            LaterCondition(after: longRunning.started, .failure(TestError(tag: "decided"))))
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure, timeout: 5)
        #expect(!procedure.didExecute)
        #expect(procedure.error as? TestError == TestError(tag: "decided"))
        waitForFinish(longRunning, timeout: 5)
        #expect(longRunning.isCancelled)
    }

    @Test func cancellingTheProcedureCancelsProducedDependenciesButNotOthers() {
        let produced = RunsUntilCancelled()
        let external = RunsUntilCancelled()
        let condition = TrueCondition()
        condition.produceDependency(produced)
        condition.addDependency(external)
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        let queue = ProcedureQueue()
        queue.addOperations(procedure, external)
        #expect(produced.started.wait(timeout: .now() + 5) == .success)
        procedure.cancel()
        waitForFinish(procedure, produced, timeout: 5)
        #expect(produced.isCancelled)
        #expect(!external.isCancelled)
        #expect(!external.isFinished)
        external.cancel()
        waitUntilIdle(queue)
    }

    @Test func aConditionWithoutDependenciesIsNotHeldUpByAnothersDependencies() {
        let external = RunsUntilCancelled()
        let waiting = TrueCondition()
        waiting.addDependency(external)
        let evaluated = DispatchSemaphore(value: 0)
        let procedure = TestProcedure()
        procedure.addCondition(waiting)
        procedure.addCondition(
            BlockCondition {
                evaluated.signal()
                return true
            })
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        #expect(evaluated.wait(timeout: .now() + 5) == .success)
        #expect(!procedure.isFinished)
        queue.addOperation(external)
        #expect(external.started.wait(timeout: .now() + 5) == .success)
        external.cancel()
        waitUntilIdle(queue)
        #expect(procedure.didExecute)
    }
}

import Testing

@testable import ProcedureKit

/// `Condition.DependencyRequirements`, as the original has them: checked once a condition's
/// dependencies have finished, before it is evaluated (issue 26, "API missing here").
@Suite("Condition dependency requirements")
struct DependencyRequirementsTests {
    /// Runs a procedure whose condition, with `requirements`, waits for `dependency`; returns
    /// the procedure and whether the condition was evaluated.
    private func run(
        _ requirements: Condition.DependencyRequirements, dependency: Procedure
    ) -> (procedure: TestProcedure, evaluated: Bool) {
        let evaluations = Recorder<String>()
        let condition = BlockCondition {
            evaluations.append("evaluated")
            return true
        }
        condition.name = "checked"
        condition.dependencyRequirements = requirements
        condition.addDependency(dependency)
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        let queue = ProcedureQueue()
        queue.addOperations(dependency, procedure)
        waitUntilIdle(queue)
        return (procedure, evaluations.count == 1)
    }

    private func cancelled(with error: TestError? = nil) -> TestProcedure {
        let procedure = TestProcedure()
        procedure.cancel(with: error)
        return procedure
    }

    @Test func noneStillEvaluatesWhenADependencyFailed() {
        let result = run(.none, dependency: TestProcedure(error: TestError()))
        #expect(result.evaluated)
        #expect(result.procedure.didExecute)
    }

    @Test func noFailedFailsWithoutEvaluating() {
        let result = run(.noFailed, dependency: TestProcedure(error: TestError()))
        #expect(!result.evaluated)
        #expect(
            result.procedure.error as? ProcedureKitError
                == ProcedureKitError(context: .conditionDependenciesFailed("checked")))
    }

    @Test func noFailedIgnoresADependencyCancelledWithoutAnError() {
        #expect(run(.noFailed, dependency: cancelled()).procedure.didExecute)
    }

    @Test func noFailedCountsADependencyCancelledWithAnError() {
        let result = run(.noFailed, dependency: cancelled(with: TestError()))
        #expect(!result.evaluated)
        #expect(
            (result.procedure.error as? ProcedureKitError)?.context
                == .conditionDependenciesFailed("checked"))
        let ignoring = run(
            [.noFailed, .ignoreFailedIfCancelled], dependency: cancelled(with: .init()))
        #expect(ignoring.procedure.didExecute)
    }

    @Test func noCancelledFailsWithoutEvaluating() {
        let result = run(.noCancelled, dependency: cancelled())
        #expect(!result.evaluated)
        #expect(
            (result.procedure.error as? ProcedureKitError)?.context
                == .conditionDependenciesCancelled("checked"))
        #expect(run(.noCancelled, dependency: TestProcedure(error: TestError())).evaluated)
    }
}

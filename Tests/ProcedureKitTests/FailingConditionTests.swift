import Testing

@testable import ProcedureKit

/// `FalseCondition` and the negation of a satisfied condition fail with an error, as in the
/// original, rather than skipping the procedure without one (issue 26, item 6).
@Suite("Conditions that always fail")
struct FailingConditionTests {
    @Test(arguments: [
        ("FalseCondition", FalseCondition() as Condition),
        ("NegatedCondition(TrueCondition())", NegatedCondition(TrueCondition())),
        ("!TrueCondition()", !TrueCondition()),
    ])
    func cancelsTheProcedureWithConditionFailed(_ label: String, condition: Condition) {
        #expect(describe(evaluate(condition)) == "failure", "\(label)")
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(!procedure.didExecute, "\(label)")
        #expect(procedure.isCancelled, "\(label)")
        #expect(procedure.error as? ProcedureKitError == .conditionFailed(), "\(label)")
    }

    @Test func beatsASatisfiedCondition() {
        let procedure = TestProcedure()
        procedure.addCondition(TrueCondition())
        procedure.addCondition(FalseCondition())
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(!procedure.didExecute)
        #expect(procedure.error as? ProcedureKitError == .conditionFailed())
    }
}

/// A condition's error becomes the procedure's as it is, as in the original: not wrapped in
/// `conditionFailed` (issue 26, item 9).
@Suite("Condition errors as the original reports them")
struct ConditionErrorTests {
    /// Runs `procedure` after `dependency`, with `condition` attached, and waits for both.
    private func run(
        _ condition: Condition, after dependency: Procedure, procedure: TestProcedure = .init()
    ) -> TestProcedure {
        procedure.addDependency(dependency)
        procedure.addCondition(condition)
        let queue = ProcedureQueue()
        queue.addOperations(dependency, procedure)
        waitUntilIdle(queue)
        return procedure
    }

    @Test func noFailedDependenciesReportsDependenciesFailed() {
        let procedure = run(
            NoFailedDependenciesCondition(), after: TestProcedure(error: TestError()))
        #expect(!procedure.didExecute)
        let error = procedure.error as? ProcedureKitError
        #expect(error?.context == .dependenciesFailed)
        #expect(error?.error == nil)
    }

    @Test func aDependencyCancelledWithAnErrorCountsAsFailed() {
        let dependency = TestProcedure()
        dependency.cancel(with: TestError())
        let procedure = run(
            NoFailedDependenciesCondition(ignoreCancellations: true), after: dependency)
        #expect((procedure.error as? ProcedureKitError)?.context == .dependenciesFailed)
    }

    @Test func noFailedDependenciesReportsDependenciesCancelled() {
        let dependency = TestProcedure()
        dependency.cancel()
        let procedure = run(NoFailedDependenciesCondition(), after: dependency)
        #expect((procedure.error as? ProcedureKitError)?.context == .dependenciesCancelled)
    }

    @Test func aThrowingBlockConditionFailsWithConditionFailedWrappingTheError() {
        let procedure = TestProcedure()
        procedure.addCondition(BlockCondition { throw TestError(tag: "thrown") })
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        let error = procedure.error as? ProcedureKitError
        #expect(error?.context == .conditionFailed)
        #expect(error?.error as? TestError == TestError(tag: "thrown"))
    }

    @Test(arguments: [
        ("!FalseCondition()", !FalseCondition() as Condition),
        ("!NoFailedDependenciesCondition()", !NoFailedDependenciesCondition()),
    ])
    func aNegatedFailureLetsTheProcedureRun(_ label: String, condition: Condition) {
        let procedure = run(condition, after: TestProcedure(error: TestError()))
        #expect(procedure.didExecute, "\(label)")
        #expect(procedure.error == nil, "\(label)")
    }
}

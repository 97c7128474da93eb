import Testing

@testable import ProcedureKit

/// Runs a new procedure with `conditions` attached and waits for it.
private func run(_ conditions: Condition...) -> TestProcedure {
    let procedure = TestProcedure()
    for condition in conditions { procedure.addCondition(condition) }
    ProcedureQueue().addOperation(procedure)
    waitForFinish(procedure)
    return procedure
}

/// `.success(false)` is "ignored", as in the original: it does not count beside a satisfied
/// condition, and skips the procedure only when every condition answers it (issue 26, item 2).
@Suite("An ignored condition result")
struct IgnoredConditionResultTests {
    @Test func besideASatisfiedConditionTheProcedureRuns() {
        let procedure = run(FixedCondition(.success(false)), TrueCondition())
        #expect(procedure.didExecute)
        #expect(procedure.error == nil)
    }

    @Test func besideASatisfiedConditionInAnAndConditionTheProcedureRuns() {
        let procedure = run(AndCondition([FixedCondition(.success(false)), TrueCondition()]))
        #expect(procedure.didExecute)
        #expect(describe(evaluate(FixedCondition(.success(false)) && TrueCondition())) == "true")
    }

    @Test func whenEveryConditionIsIgnoredTheProcedureIsSkippedWithoutAnError() {
        let procedure = run(FixedCondition(.success(false)), FixedCondition(.success(false)))
        #expect(!procedure.didExecute)
        #expect(procedure.isCancelled)
        #expect(procedure.error == nil)
    }

    @Test func aFailureBesideItStillFails() {
        let failing = FixedCondition(.failure(TestError(tag: "failed")))
        let procedure = run(FixedCondition(.success(false)), TrueCondition(), failing)
        #expect(!procedure.didExecute)
        #expect(procedure.error as? TestError == TestError(tag: "failed"))
    }
}

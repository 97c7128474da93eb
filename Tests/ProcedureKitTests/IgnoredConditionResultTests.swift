import Testing

@testable import ProcedureKit

/// `.success(false)` is "ignored", as in the original: it does not count beside a satisfied
/// condition, and skips the procedure only when every condition answers it (issue 26, item 2).
@Suite("An ignored condition result")
struct IgnoredConditionResultTests {
    @Test func besideASatisfiedConditionTheProcedureRuns() {
        let procedure = runProcedure(conditions: FixedCondition(.success(false)), TrueCondition())
        #expect(procedure.didExecute)
        #expect(procedure.error == nil)
    }

    @Test func besideASatisfiedConditionInAnAndConditionTheProcedureRuns() {
        let procedure = runProcedure(
            conditions: AndCondition([FixedCondition(.success(false)), TrueCondition()]))
        #expect(procedure.didExecute)
        #expect(describe(evaluate(FixedCondition(.success(false)) && TrueCondition())) == "true")
    }

    @Test func whenEveryConditionIsIgnoredTheProcedureIsSkippedWithoutAnError() {
        let procedure = runProcedure(
            conditions: FixedCondition(.success(false)), FixedCondition(.success(false)))
        #expect(!procedure.didExecute)
        #expect(procedure.isCancelled)
        #expect(procedure.error == nil)
    }

    @Test func aFailureBesideItStillFails() {
        let failing = FixedCondition(.failure(TestError(tag: "failed")))
        let procedure = runProcedure(
            conditions: FixedCondition(.success(false)), TrueCondition(), failing)
        #expect(!procedure.didExecute)
        #expect(procedure.error as? TestError == TestError(tag: "failed"))
    }
}

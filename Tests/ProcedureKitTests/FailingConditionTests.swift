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

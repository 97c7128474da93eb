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

/// The conditions API the original's users reach for: `IgnoredCondition`, named true and false
/// conditions with a category, equality (issue 26, "API missing here").
@Suite("Condition API as the original has it")
struct ConditionAPITests {
    @Test func anIgnoredFailureSkipsWithoutAnError() {
        let procedure = run(IgnoredCondition(FalseCondition()))
        #expect(!procedure.didExecute)
        #expect(procedure.isCancelled)
        #expect(procedure.error == nil)
    }

    @Test func anIgnoredFailureBesideASatisfiedConditionLetsTheProcedureRun() {
        #expect(run(IgnoredCondition(FalseCondition()), TrueCondition()).didExecute)
        #expect(
            run(AndCondition([IgnoredCondition(FalseCondition()), TrueCondition()])).didExecute)
    }

    @Test func anIgnoredSatisfiedConditionIsSatisfied() {
        #expect(run(IgnoredCondition(TrueCondition())).didExecute)
        #expect(IgnoredCondition(FalseCondition()).name == "Ignored<FalseCondition>")
    }

    @Test func negatingAnIgnoredFailureIsSatisfied() {
        #expect(run(NegatedCondition(IgnoredCondition(FalseCondition()))).didExecute)
    }

    @Test func trueAndFalseConditionsTakeANameAndACategory() {
        let named = TrueCondition(name: "always", mutuallyExclusiveCategory: "disk")
        #expect(named.name == "always")
        #expect(named.mutuallyExclusiveCategories == ["disk"])
        let never = FalseCondition(name: "never", mutuallyExclusiveCategory: "net")
        #expect(never.name == "never")
        #expect(never.mutuallyExclusiveCategories == ["net"])
        #expect(TrueCondition().name == "TrueCondition")
    }

    @Test func conditionsAreEqualWhenTheyAreTheSameInstance() {
        let condition = TrueCondition()
        let alias: Condition = condition
        #expect(condition == alias)
        #expect(condition != TrueCondition())
        #expect(Set<Condition>([condition, alias]).count == 1)
    }

    @Test func compoundConditionsAreMadeWithAPredicate() {
        let and = CompoundCondition(andPredicateWith: [
            IgnoredCondition(FalseCondition()), TrueCondition(),
        ])
        #expect(run(and).didExecute)
        #expect(
            !run(CompoundCondition(andPredicateWith: [TrueCondition(), FalseCondition()]))
                .didExecute)
        #expect(
            run(CompoundCondition(orPredicateWith: [FalseCondition(), TrueCondition()])).didExecute)
        let failing = run(CompoundCondition(orPredicateWith: [FalseCondition()]))
        #expect(failing.error as? ProcedureKitError == .conditionFailed())
    }
}

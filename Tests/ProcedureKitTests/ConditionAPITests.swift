import Testing

@testable import ProcedureKit

/// The conditions API the original's users reach for: `IgnoredCondition`, named true and false
/// conditions with a category, equality (issue 26, "API missing here").
@Suite("Condition API as the original has it")
struct ConditionAPITests {
    @Test func anIgnoredFailureSkipsWithoutAnError() {
        let procedure = runProcedure(conditions: IgnoredCondition(FalseCondition()))
        #expect(!procedure.didExecute)
        #expect(procedure.isCancelled)
        #expect(procedure.error == nil)
    }

    @Test func anIgnoredFailureBesideASatisfiedConditionLetsTheProcedureRun() {
        #expect(
            runProcedure(conditions: IgnoredCondition(FalseCondition()), TrueCondition()).didExecute
        )
        #expect(
            runProcedure(
                conditions: AndCondition([IgnoredCondition(FalseCondition()), TrueCondition()])
            ).didExecute)
    }

    @Test func anIgnoredSatisfiedConditionIsSatisfied() {
        #expect(runProcedure(conditions: IgnoredCondition(TrueCondition())).didExecute)
        #expect(IgnoredCondition(FalseCondition()).name == "Ignored<FalseCondition>")
    }

    @Test func negatingAnIgnoredFailureIsSatisfied() {
        #expect(
            runProcedure(conditions: NegatedCondition(IgnoredCondition(FalseCondition())))
                .didExecute)
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
        #expect(runProcedure(conditions: and).didExecute)
        #expect(
            !runProcedure(
                conditions: CompoundCondition(andPredicateWith: [TrueCondition(), FalseCondition()])
            )
            .didExecute)
        #expect(
            runProcedure(
                conditions: CompoundCondition(orPredicateWith: [FalseCondition(), TrueCondition()])
            ).didExecute)
        let failing = runProcedure(
            conditions: CompoundCondition(orPredicateWith: [FalseCondition()]))
        #expect(failing.error as? ProcedureKitError == .conditionFailed())
    }
}

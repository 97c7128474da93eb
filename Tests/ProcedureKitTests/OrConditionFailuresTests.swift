import Foundation
import Testing

@testable import ProcedureKit

/// An `OrCondition` none of whose parts is satisfied fails with all their errors, as the
/// original's `conditionResult` combines them (issue 26).
@Suite("An OrCondition's combined failures")
struct OrConditionFailuresTests {

    private func failing(_ tag: String) -> FixedCondition {
        FixedCondition(.failure(TestError(tag: tag)))
    }

    private func tags(_ error: (any Error)?) -> [String] {
        let failed = error as? ProcedureKitError.FailedConditions
        return failed?.errors.map { ($0 as? TestError)?.tag ?? "?" } ?? []
    }

    /// The original's `test__nested_failing_or_conditions`.
    @Test func nestedFailingOrConditionsFailWithEveryError() {
        let procedure = runProcedure(
            conditions: OrCondition([
                OrCondition([FalseCondition(), FalseCondition()]),
                OrCondition([FalseCondition(), FalseCondition()]),
            ]))
        #expect(!procedure.didExecute)
        #expect(procedure.isCancelled)
        let failed = procedure.error as? ProcedureKitError.FailedConditions
        #expect(failed?.errors.count == 4)
        #expect(
            failed?.errors.allSatisfy {
                ($0 as? ProcedureKitError)?.context == .conditionFailed
            } == true)
    }

    @Test func twoFailuresAreCombinedInTheOrderOfTheConditions() {
        let procedure = runProcedure(conditions: OrCondition([failing("a"), failing("b")]))
        #expect(tags(procedure.error) == ["a", "b"])
        let compound = evaluate(
            CompoundCondition(orPredicateWith: [
                failing("a"), FixedCondition(.success(false)), failing("b"),
            ]))
        #expect(tags(compound.error) == ["a", "b"])
        #expect(tags(evaluate(failing("a") || failing("b")).error) == ["a", "b"])
    }

    /// The original's `test__or_condition__with_single_failing_condition__fails` and
    /// `test__or_condition__with_failing_and_ignored_condition__fails`.
    @Test func oneFailureStaysItself() {
        let single = runProcedure(conditions: OrCondition([FalseCondition()]))
        #expect((single.error as? ProcedureKitError)?.context == .conditionFailed)
        let withIgnored = runProcedure(
            conditions: OrCondition([IgnoredCondition(FalseCondition()), FalseCondition()]))
        #expect((withIgnored.error as? ProcedureKitError)?.context == .conditionFailed)
        let tagged = evaluate(OrCondition([FixedCondition(.success(false)), failing("only")]))
        #expect((tagged.error as? TestError)?.tag == "only")
    }

    @Test func aSatisfiedPartStillWinsOverSeveralFailures() {
        let result = evaluate(
            OrCondition([failing("a"), failing("b"), FixedCondition(.success(true))]))
        #expect(result.value == true)
    }

    @Test func nestedCombinationsAreFlattenedInOrder() {
        // The original puts a nested combination's errors first when it comes second; this
        // library keeps the order of the conditions.
        let first = evaluate(
            OrCondition([OrCondition([failing("a"), failing("b")]), failing("c")]))
        #expect(tags(first.error) == ["a", "b", "c"])
        let second = evaluate(
            OrCondition([failing("a"), OrCondition([failing("b"), failing("c")])]))
        #expect(tags(second.error) == ["a", "b", "c"])
    }

    @Test func anAndConditionStillFailsWithItsFirstFailure() {
        let result = evaluate(AndCondition([failing("a"), failing("b")]))
        #expect((result.error as? TestError)?.tag == "a")
    }

    @Test func theCombinedErrorReadsAsASentence() {
        let error = ProcedureKitError.FailedConditions(errors: [
            TestError(tag: "a"), ProcedureKitError.conditionFailed(),
        ])
        #expect(
            error.description
                == "2 conditions failed: TestError(tag: \"a\"); A condition failed.")
    }
}

import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// A condition that reports a fixed result and counts its evaluations.
final class FixedCondition: Condition, @unchecked Sendable {
    let result: ConditionResult
    let evaluations = Recorder<String>()

    init(_ result: ConditionResult) {
        self.result = result
        super.init()
    }

    override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluations.append("evaluated")
        completion(result)
    }
}

/// Runs `procedure` with `condition` attached and waits for it.
private func run(_ condition: Condition, on procedure: TestProcedure = TestProcedure())
    -> TestProcedure
{
    procedure.addCondition(condition)
    ProcedureQueue().addOperation(procedure)
    waitForFinish(procedure)
    return procedure
}

@Suite("Conditions")
struct ConditionTests {

    @Test func aSatisfiedConditionLetsTheProcedureRun() {
        let procedure = run(TrueCondition())
        #expect(procedure.didExecute)
        #expect(procedure.status == .finished)
    }

    @Test func aConditionAnsweringFalseSkipsWithoutAnError() {
        let procedure = run(BlockCondition { false })
        #expect(!procedure.didExecute)
        #expect(procedure.isCancelled)
        #expect(procedure.error == nil)
    }

    @Test func aFailedConditionCancelsWithItsErrorAsItIs() {
        let procedure = run(FixedCondition(.failure(TestError(tag: "nope"))))
        #expect(!procedure.didExecute)
        #expect(procedure.isCancelled)
        #expect(procedure.error as? TestError == TestError(tag: "nope"))
    }

    @Test func conditionsAreEvaluatedAfterDependenciesFinish() {
        let events = Recorder<String>()
        let dependency = TestProcedure(name: "dependency", events: events)
        let procedure = TestProcedure(name: "procedure", events: events)
        procedure.addDependency(dependency)
        procedure.addCondition(
            BlockCondition {
                events.append("evaluate")
                return true
            })
        let queue = ProcedureQueue()
        queue.addOperations(procedure, dependency)
        waitUntilIdle(queue)
        #expect(events.all == ["execute dependency", "evaluate", "execute procedure"])
    }

    @Test func producedDependenciesRunAfterTheProceduresDependenciesAndBeforeEvaluation() {
        let events = Recorder<String>()
        let dependency = TestProcedure(name: "dependency", events: events)
        let produced = TestProcedure(name: "produced", events: events)
        let condition = BlockCondition {
            events.append("evaluate")
            return true
        }
        condition.produceDependency(produced)
        let procedure = TestProcedure(name: "procedure", events: events)
        procedure.addDependency(dependency)
        procedure.addCondition(condition)
        let queue = ProcedureQueue()
        queue.addOperations(procedure, dependency)
        waitUntilIdle(queue)
        #expect(
            events.all == [
                "execute dependency", "execute produced", "evaluate", "execute procedure",
            ])
        #expect(!procedure.dependencies.contains(produced))
    }

    @Test func aConditionWaitsForItsOwnDependencies() {
        let events = Recorder<String>()
        let external = TestProcedure(name: "external", events: events)
        let condition = BlockCondition {
            events.append("evaluate")
            return true
        }
        condition.addDependency(external)
        let procedure = TestProcedure(name: "procedure", events: events)
        procedure.addCondition(condition)
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        usleep(20_000)
        #expect(events.all.isEmpty)
        queue.addOperation(external)
        waitUntilIdle(queue)
        #expect(events.all == ["execute external", "evaluate", "execute procedure"])
    }

    @Test func blockConditionThrowingFailsTheCondition() {
        let procedure = run(BlockCondition { throw TestError(tag: "thrown") })
        let error = procedure.error as? ProcedureKitError
        #expect(error?.context == .conditionFailed)
        #expect(error?.error as? TestError == TestError(tag: "thrown"))
    }

    @Test func noFailedDependenciesFailsWhenADependencyFailed() {
        let failing = TestProcedure(error: TestError())
        let procedure = TestProcedure()
        procedure.addDependency(failing)
        procedure.addCondition(NoFailedDependenciesCondition())
        let queue = ProcedureQueue()
        queue.addOperations(failing, procedure)
        waitUntilIdle(queue)
        #expect(!procedure.didExecute)
        #expect(procedure.error as? ProcedureKitError == .dependenciesFailed())
    }

    @Test(arguments: [false, true])
    func noFailedDependenciesAndCancelledDependencies(ignoreCancellations: Bool) {
        let cancelled = TestProcedure()
        cancelled.cancel()
        let procedure = TestProcedure()
        procedure.addDependency(cancelled)
        procedure.addCondition(
            NoFailedDependenciesCondition(ignoreCancellations: ignoreCancellations))
        let queue = ProcedureQueue()
        queue.addOperations(cancelled, procedure)
        waitUntilIdle(queue)
        #expect(!procedure.didExecute)
        #expect(procedure.isCancelled)
        if ignoreCancellations {
            #expect(procedure.error == nil)
        } else {
            #expect(procedure.error as? ProcedureKitError == .dependenciesCancelled())
        }
    }

    @Test func noFailedDependenciesPassesWhenAllSucceeded() {
        let dependency = TestProcedure()
        let procedure = TestProcedure()
        procedure.addDependency(dependency)
        procedure.addCondition(NoFailedDependenciesCondition())
        let queue = ProcedureQueue()
        queue.addOperations(dependency, procedure)
        waitUntilIdle(queue)
        #expect(procedure.didExecute)
    }

    @Test(arguments: [
        (ConditionResult.success(true), "failure"),
        (.success(false), "true"),
        (.failure(TestError()), "true"),
    ])
    func negatedConditionFailsWhenSatisfiedAndIsSatisfiedOtherwise(
        inner: ConditionResult, expected: String
    ) {
        let negated = NegatedCondition(FixedCondition(inner))
        #expect(describe(evaluate(negated)) == expected)
        #expect(describe(evaluate(!FixedCondition(inner))) == expected)
    }

    @Test(arguments: [
        ([true, true], "true"), ([true, false], "true"), ([false, false], "false"),
    ])
    func andConditionNeedsOneTrueAndNoFailure(values: [Bool], expected: String) {
        let conditions = values.map { FixedCondition(.success($0)) }
        #expect(describe(evaluate(AndCondition(conditions))) == expected)
        #expect(describe(evaluate(conditions[0] && conditions[1])) == expected)
    }

    @Test(arguments: [
        ([true, true], "true"), ([true, false], "true"), ([false, false], "false"),
    ])
    func orConditionNeedsAnyCondition(values: [Bool], expected: String) {
        let conditions = values.map { FixedCondition(.success($0)) }
        #expect(describe(evaluate(OrCondition(conditions))) == expected)
        #expect(describe(evaluate(conditions[0] || conditions[1])) == expected)
    }

    @Test func compoundConditionsReportFailuresInOrder() {
        let failing = FixedCondition(.failure(TestError(tag: "first")))
        let alsoFailing = FixedCondition(.failure(TestError(tag: "second")))
        let and = evaluate(FixedCondition(.success(false)) && failing && alsoFailing)
        #expect((and.error as? TestError)?.tag == "first")
        let or = evaluate(FixedCondition(.success(true)) || failing)
        #expect(or.value == true)
        let orFailing = evaluate(FixedCondition(.success(false)) || failing)
        #expect((orFailing.error as? TestError)?.tag == "first")
    }

    @Test func silentConditionDoesNotProduceDependencies() {
        let produced = TestProcedure(name: "produced")
        let inner = TrueCondition()
        inner.produceDependency(produced)
        let external = TestProcedure()
        inner.addDependency(external)
        inner.addToAttachedProcedure(mutuallyExclusiveCategory: "silent-test")
        let silent = SilentCondition(inner)
        #expect(silent.producedDependencies.isEmpty)
        #expect(silent.dependencies == [external])
        #expect(silent.mutuallyExclusiveCategories == ["silent-test"])
        let procedure = TestProcedure()
        procedure.addCondition(silent)
        let queue = ProcedureQueue()
        queue.addOperations(external, procedure)
        waitUntilIdle(queue)
        #expect(procedure.didExecute)
        #expect(!produced.isFinished)
    }

    @Test func compoundConditionsCarryTheirPartsCategories() {
        let second = MutuallyExclusive<TestProcedure>(category: "compound")
        let combined = TrueCondition() && !second
        #expect(combined.mutuallyExclusiveCategories == ["compound"])
    }

    @Test func theBaseConditionFailsWithAProgrammingError() {
        let result = evaluate(Condition())
        #expect(
            (result.error as? ProcedureKitError)?.context
                == .programmingError("Condition does not override evaluate(procedure:completion:)"))
    }
}

/// Evaluates `condition` directly and returns its result.
func evaluate(_ condition: Condition) -> ConditionResult {
    let result = Recorder<ConditionResult>()
    let done = DispatchSemaphore(value: 0)
    condition.evaluate(procedure: TestProcedure()) {
        result.append($0)
        done.signal()
    }
    _ = done.wait(timeout: .now() + 5)
    return result.all.first ?? .failure(TestError(tag: "no result"))
}

func describe(_ result: ConditionResult) -> String {
    switch result {
    case .success(let value): return "\(value)"
    case .failure: return "failure"
    }
}

/// Where this library now behaves as the original ProcedureKit does (issue 26).
@Suite("Conditions as the original has them")
struct ConditionFidelityTests {
    @Test func anEmptyAndConditionSkipsWithoutAnError() {
        let procedure = TestProcedure()
        procedure.addCondition(AndCondition([]))
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(!procedure.didExecute)
        #expect(procedure.isCancelled)
        #expect(procedure.error == nil)
    }

    @Test func aConditionListedTwiceIsEvaluatedOnce() {
        for compound in [{ AndCondition($0) }, { OrCondition($0) }] as [([Condition]) -> Condition]
        {
            let condition = FixedCondition(.success(true))
            let procedure = TestProcedure()
            procedure.addCondition(compound([condition, condition]))
            ProcedureQueue().addOperation(procedure)
            waitForFinish(procedure)
            #expect(procedure.didExecute)
            #expect(condition.evaluations.count == 1)
        }
    }

    @Test func namesAreTheOriginals() {
        #expect(MutuallyExclusive<Procedure>().name == "MutuallyExclusive<Procedure>")
        #expect(
            MutuallyExclusive<Procedure>(category: "disk").name == "MutuallyExclusive<Procedure>")
        #expect(DelayProcedure(by: 1).name == "Delay for 1.0 seconds")
        let date = Date(timeIntervalSinceNow: 60)
        #expect(DelayProcedure(until: date).name == "Delay until \(date)")
    }
}

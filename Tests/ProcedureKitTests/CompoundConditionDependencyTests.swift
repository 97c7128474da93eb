import Testing

@testable import ProcedureKit

/// `AndCondition` and `OrCondition` leave their parts' dependencies with the parts, as the
/// original does: each part waits for its own, inside the compound's evaluation (issue 26,
/// item 4).
@Suite("Compound conditions and their parts' dependencies")
struct CompoundConditionDependencyTests {
    @Test(arguments: [true, false])
    func theDependenciesStayWithTheParts(and: Bool) {
        let produced = TestProcedure()
        let external = TestProcedure()
        let part = TrueCondition()
        part.produceDependency(produced)
        part.addDependency(external)
        let compound = and ? part && TrueCondition() : part || TrueCondition()
        #expect(compound.producedDependencies.isEmpty)
        #expect(compound.dependencies.isEmpty)
        #expect(part.producedDependencies == [produced])
        #expect(part.dependencies == [external])
    }

    @Test func aPartIsEvaluatedAfterTheDependencyItProduces() {
        let events = Recorder<String>()
        let produced = TestProcedure(name: "produced", events: events)
        let part = BlockCondition {
            events.append("evaluate")
            return true
        }
        part.produceDependency(produced)
        let procedure = TestProcedure(name: "procedure", events: events)
        procedure.addCondition(AndCondition([TrueCondition(), part]))
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        waitUntilIdle(queue)
        #expect(events.all == ["execute produced", "evaluate", "execute procedure"])
    }

    @Test func anOrConditionDecidedByOnePartCancelsAnothersProducedDependency() {
        let lingering = RunsUntilCancelled()
        let waiting = TrueCondition()
        waiting.produceDependency(lingering)
        let procedure = TestProcedure()
        procedure.addCondition(
            OrCondition([waiting, LaterCondition(after: lingering.started, .success(true))]))
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        waitForFinish(procedure, lingering, timeout: 5)
        #expect(procedure.didExecute)
        #expect(lingering.isCancelled)
    }
}

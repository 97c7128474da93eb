import Testing

@testable import ProcedureKit

/// `SilentCondition` removes the produced dependencies from the condition it wraps, as the
/// original does, so that nothing produces them (issue 26, item 8).
@Suite("SilentCondition")
struct SilentConditionTests {
    @Test func removesTheWrappedConditionsProducedDependencies() {
        let produced = TestProcedure()
        let external = TestProcedure()
        let inner = TrueCondition()
        inner.produceDependency(produced)
        inner.addDependency(external)
        _ = SilentCondition(inner)
        #expect(inner.producedDependencies.isEmpty)
        #expect(inner.dependencies == [external])
    }

    @Test func theWrappedConditionAttachedElsewhereProducesNothing() {
        let produced = TestProcedure()
        let inner = TrueCondition()
        inner.produceDependency(produced)
        let silent = SilentCondition(inner)
        let procedure = TestProcedure()
        procedure.addCondition(silent)
        procedure.addCondition(inner)
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        waitUntilIdle(queue)
        #expect(procedure.didExecute)
        #expect(!produced.isFinished)
    }

    @Test func removeDependencyTakesAnOperationOutOfBothLists() {
        let produced = TestProcedure()
        let external = TestProcedure()
        let condition = TrueCondition()
        condition.produceDependency(produced)
        condition.addDependency(external)
        condition.removeDependency(produced)
        condition.removeDependency(external)
        #expect(condition.producedDependencies.isEmpty)
        #expect(condition.dependencies.isEmpty)
    }
}

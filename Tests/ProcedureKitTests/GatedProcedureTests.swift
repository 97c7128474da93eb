import Testing

@testable import ProcedureKit

/// `GatedProcedure`: its operation runs only if the gate says so (issue 26, "API missing
/// here").
@Suite("GatedProcedure")
struct GatedProcedureTests {
    /// Runs `gated` on a new queue and waits for it.
    private func run(_ gated: GatedProcedure<TestProcedure>) {
        ProcedureQueue().addOperation(gated)
        waitForFinish(gated)
    }

    @Test func anOpenGateRunsTheOperation() {
        let operation = TestProcedure()
        let gated = GatedProcedure(operation) { true }
        run(gated)
        #expect(operation.didExecute)
        #expect(!gated.isCancelled)
        #expect(gated.error == nil)
    }

    @Test(arguments: [false, true])
    func aClosedOrFailingGateSkipsWithoutAnError(throwing: Bool) {
        let operation = TestProcedure()
        let gated = GatedProcedure(operation: operation) {
            if throwing { throw TestError() }
            return false
        }
        run(gated)
        #expect(!operation.didExecute)
        #expect(gated.isCancelled)
        #expect(gated.error == nil)
    }

    @Test func aClosedGateBesideASatisfiedConditionIsIgnored() {
        let operation = TestProcedure()
        let gated = GatedProcedure(operation) { false }
        gated.addCondition(TrueCondition())
        run(gated)
        #expect(operation.didExecute)
    }
}

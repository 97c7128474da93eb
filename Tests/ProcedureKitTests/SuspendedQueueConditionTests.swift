import Testing

@testable import ProcedureKit

/// A suspended queue evaluates no conditions until it is resumed, as the original's does not
/// (issue 26, item 5).
@Suite("Conditions in a suspended queue")
struct SuspendedQueueConditionTests {
    @Test func areEvaluatedOnlyOnceTheQueueIsResumed() {
        let evaluations = Recorder<String>()
        let dependency = TestProcedure()
        let procedure = TestProcedure()
        procedure.addDependency(dependency)
        procedure.addCondition(
            BlockCondition {
                evaluations.append("evaluated")
                return true
            })
        let queue = ProcedureQueue()
        queue.isSuspended = true
        queue.addOperation(procedure)
        // The procedure hears that its dependency finished before the dependency settles.
        ProcedureQueue().addOperation(dependency)
        waitForFinish(dependency)
        #expect(evaluations.count == 0)
        queue.isSuspended = false
        waitForFinish(procedure)
        #expect(evaluations.count == 1)
        #expect(procedure.didExecute)
    }
}

import Testing

@testable import ProcedureKit

/// `then(do:)` on a single operation, as the original has it (issue 26, "API missing here").
@Suite("then(do:) on one operation")
struct OperationThenTests {
    @Test func theNextOperationWaitsForThisOne() {
        let events = Recorder<String>()
        let first = TestProcedure(name: "first", events: events)
        let second = TestProcedure(name: "second", events: events)
        let operations = first.then(do: second)
        #expect(operations == [first, second])
        #expect(second.dependencies == [first])
        let queue = ProcedureQueue()
        queue.addOperations(operations.reversed())
        waitUntilIdle(queue)
        #expect(events.all == ["execute first", "execute second"])
        #expect(TestProcedure().then { nil }.count == 1)
    }
}

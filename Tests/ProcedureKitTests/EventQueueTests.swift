import Testing

@testable import ProcedureKit

@Suite("A procedure's event queue")
struct EventQueueTests {
    @Test func eventsComeOutInTheOrderTheyWentIn() {
        var queue = EventQueue<Int>()
        #expect(queue.popFirst() == nil)
        queue.append(1)
        queue.append(2)
        queue.append(3)
        #expect(queue.popFirst() == 1)
        // The inline place is free again, but older events wait behind it.
        queue.append(4)
        #expect(queue.popFirst() == 2)
        queue.append(5)
        #expect(queue.popFirst() == 3)
        #expect(queue.popFirst() == 4)
        #expect(queue.popFirst() == 5)
        #expect(queue.popFirst() == nil)
        queue.append(6)
        #expect(queue.popFirst() == 6)
        #expect(queue.popFirst() == nil)
    }
}

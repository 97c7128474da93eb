import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

@Suite("ProcedureQueueDelegate")
struct ProcedureQueueDelegateTests {

    @Test func theDelegateHearsEachOperationAddedAndFinishing() async {
        let delegate = RecordingDelegate()
        let queue = ProcedureQueue()
        queue.delegate = delegate
        let failing = TestProcedure(name: "p", error: TestError(tag: "bad"))
        let plain = BlockOperation {}
        plain.name = "op"
        queue.addOperations(failing, plain)
        await waitUntilIdle(queue)
        let all = delegate.events.all
        func position(_ event: String) -> Int { all.firstIndex(of: event) ?? .max }
        #expect(all.count == 7)
        #expect(position("will add p") < position("did add p"))
        #expect(position("will add p") < position("will finish p bad"))
        #expect(position("will finish p bad") < position("did finish p bad"))
        #expect(position("will add op") < position("did finish op ok"))
        #expect(!all.contains("will finish op ok"))
    }

    @Test func theQueueHoldsItsDelegateWeakly() async {
        let queue = ProcedureQueue()
        do {
            let delegate = RecordingDelegate()
            queue.delegate = delegate
            #expect(queue.delegate != nil)
        }
        #expect(queue.delegate == nil)
        queue.addOperation(TestProcedure())
        await waitUntilIdle(queue)
    }
}

import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

@Suite("Map, filter, reduce and flatten procedures")
struct CollectionTransformTests {

    @Test func eachTransformsItsSource() async {
        let map = MapProcedure(source: [1, 2, 3]) { $0 * 10 }
        let filter = FilterProcedure(source: [1, 2, 3, 4]) { $0 % 2 == 0 }
        let reduce = ReduceProcedure(source: [1, 2, 3], initial: 100) { $0 + $1 }
        let flatten = FlattenProcedure(source: [[1], [], [2, 3]])
        let queue = ProcedureQueue()
        queue.addOperations(map, filter, reduce, flatten)
        await waitUntilIdle(queue)
        #expect(map.output.value?.value == [10, 20, 30])
        #expect(filter.output.value?.value == [2, 4])
        #expect(reduce.output.value?.value == 106)
        #expect(flatten.output.value?.value == [1, 2, 3])
    }

    @Test func helpersChainFromAnOutputProcedure() async {
        let numbers = ResultProcedure { [[1, 2], [3, 4, 5]] }
        let flat = numbers.flatten()
        let odd = flat.filter { $0 % 2 == 1 }
        let squared = odd.map { $0 * $0 }
        let sum = squared.reduce(0) { $0 + $1 }
        let queue = ProcedureQueue()
        queue.addOperations(numbers, flat, odd, squared, sum)
        await waitUntilIdle(queue)
        #expect(sum.output.value?.value == 1 + 9 + 25)
    }

    @Test func aThrowingBlockFailsTheProcedure() async {
        let map = MapProcedure<Int, Int>(source: [1, 2]) { value in
            if value == 2 { throw TestError(tag: "two") }
            return value
        }
        ProcedureQueue().addOperation(map)
        await waitForFinish(map)
        #expect(map.error as? TestError == TestError(tag: "two"))
        #expect(map.output.value?.error as? TestError == TestError(tag: "two"))
    }
}

@Suite("gathered() and then(do:)")
struct CollectionHelperTests {

    @Test func gatheredOutputsEveryOutputInOrder() async {
        let procedures = (0..<5).map { index in
            AsyncResultProcedure<Int> { finish in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds((5 - index) * 5))
                {
                    finish(.success(index))
                }
            }
        }
        let gathered = procedures.gathered()
        let queue = ProcedureQueue()
        queue.addOperations(procedures + [gathered] as [Procedure])
        await waitUntilIdle(queue)
        #expect(gathered.output.value?.value == [0, 1, 2, 3, 4])
    }

    @Test func gatheredIsCancelledWhenOneProducesNoValue() async {
        let good = ResultProcedure { 1 }
        let bad = ResultProcedure<Int> { throw TestError(tag: "bad") }
        let gathered = [good, bad].gathered()
        let queue = ProcedureQueue()
        queue.addOperations(good, bad, gathered)
        await waitUntilIdle(queue)
        #expect(gathered.isCancelled)
        let reason = gathered.error as? ProcedureKitError
        #expect(reason?.context == .dependencyFinishedWithError)
        #expect(reason?.error as? TestError == TestError(tag: "bad"))
    }

    @Test func thenMakesTheNextOperationsWaitForEveryOne() async {
        let events = Recorder<String>()
        let first = [
            TestProcedure(name: "a", events: events), TestProcedure(name: "b", events: events),
        ]
        let last = TestProcedure(name: "c", events: events)
        let all = first.then(do: last)
        #expect(all.map(\.name) == ["a", "b", "c"])
        #expect(last.dependencies.count == 2)
        ProcedureQueue().addOperations(all)
        await waitForFinish(last)
        #expect(events.all.last == "execute c")
    }
}

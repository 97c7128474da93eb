import Testing

@testable import ProcedureKit

/// `FlatMapProcedure`, `flatMap` on an output procedure, and `flatMap` and `reduce` on an
/// array of output procedures, as the original has them (issue 26, "API missing here").
@Suite("flatMap and reduce")
struct FlatMapAndReduceTests {
    @Test func aFlatMapProcedureKeepsTheNonNilResultsInOrder() async {
        let flatMap = FlatMapProcedure(source: ["1", "x", "3"]) { Int($0) }
        let queue = ProcedureQueue()
        queue.addOperation(flatMap)
        await waitUntilIdle(queue)
        #expect(flatMap.output.value?.value == [1, 3])
    }

    @Test func flatMapOnAnOutputTakesItOnceReady() async {
        let words = ResultProcedure { ["a", "", "bc"] }
        let lengths = words.flatMap { $0.isEmpty ? nil : $0.count }
        let queue = ProcedureQueue()
        queue.addOperations(words, lengths)
        await waitUntilIdle(queue)
        #expect(lengths.output.value?.value == [1, 2])
    }

    @Test func flatMapAndReduceOnProceduresCombineTheirOutputsInOrder() async {
        let procedures = [3, 0, 4].map { value in ResultProcedure { value } }
        let nonZero = procedures.flatMap { $0 == 0 ? nil : "\($0)" }
        let sum = procedures.reduce(10) { $0 + $1 }
        let queue = ProcedureQueue()
        queue.addOperations(procedures + [nonZero, sum] as [Procedure])
        await waitUntilIdle(queue)
        #expect(nonZero.output.value?.value == ["3", "4"])
        #expect(sum.output.value?.value == 17)
    }

    @Test func aThrowingTransformFailsTheProcedure() async {
        let flatMap = FlatMapProcedure<Int, Int>(source: [1]) { _ in throw TestError() }
        let queue = ProcedureQueue()
        queue.addOperation(flatMap)
        await waitUntilIdle(queue)
        #expect(flatMap.output.value?.error as? TestError == TestError())
    }
}

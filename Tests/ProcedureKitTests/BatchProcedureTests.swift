import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// Doubles its input after a pause that depends on the input, so that elements finish out of
/// order.
private func doubling(_ index: Int, _ element: Int) -> AsyncTransformProcedure<Int, Int> {
    AsyncTransformProcedure { value, finish in
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds((7 - value % 7) * 3)) {
            finish(.success(value * 2))
        }
    }
}

/// Fails on odd elements, doubles even ones.
private func evensOnly(_ index: Int, _ element: Int) -> TransformProcedure<Int, Int> {
    TransformProcedure { value in
        guard value % 2 == 0 else { throw TestError(tag: "odd \(value)") }
        return value * 2
    }
}

@Suite("BatchProcedure")
struct BatchProcedureTests {

    @Test func outputsTheElementsOutputsInOrder() async {
        let batch = BatchProcedure(via: doubling)
        batch.input = .ready(Array(0..<20))
        ProcedureQueue().addOperation(batch)
        await waitForFinish(batch)
        #expect(batch.output.value?.value == (0..<20).map { $0 * 2 })
        #expect(batch.children.count == 20)
    }

    @Test func takesAnInjectedInputAndGivesItsOutputOn() async {
        let source = ResultProcedure { [3, 1, 2] }
        let batch = BatchProcedure<TransformProcedure<Int, String>> { _, _ in
            TransformProcedure { String($0) }
        }.injectResult(from: source)
        let joined = TransformProcedure<[String], String> { $0.joined() }.injectResult(from: batch)
        let queue = ProcedureQueue()
        queue.addOperations(source, batch, joined)
        await waitUntilIdle(queue)
        #expect(joined.output.value?.value == "312")
    }

    @Test func theFactoryGetsEachIndexAndElement() async {
        let made = Recorder<String>()
        let batch = BatchProcedure<TransformProcedure<String, String>> { index, element in
            made.append("\(index)=\(element)")
            return TransformProcedure { $0 }
        }
        batch.input = .ready(["a", "b"])
        ProcedureQueue().addOperation(batch)
        await waitForFinish(batch)
        #expect(made.all == ["0=a", "1=b"])
    }

    @Test func theGroupsConcurrencyLimitApplies() async {
        let counts = Locked((current: 0, peak: 0))
        let batch = BatchProcedure<TransformProcedure<Int, Int>> { _, _ in
            TransformProcedure { value in
                counts.withLock {
                    $0.current += 1
                    $0.peak = max($0.peak, $0.current)
                }
                // Stays until two have been seen at once (or 5 s pass), then a little longer.
                _ = eventually(timeout: 5) { counts.withLock { $0.peak } >= 2 }
                usleep(5000)
                counts.withLock { $0.current -= 1 }
                return value
            }
        }
        batch.maxConcurrentOperationCount = 2
        batch.input = .ready(Array(0..<6))
        ProcedureQueue().addOperation(batch)
        await waitForFinish(batch, timeout: 60)
        #expect(counts.withLock { $0.peak } == 2)
        #expect(batch.output.value?.value == Array(0..<6))
    }

    @Test func observersHearEachElementAdded() async {
        let events = Recorder<String>()
        let batch = BatchProcedure(via: evensOnly)
        batch.addObserver(
            BlockObserver(willAdd: { _, operation in events.append(operation.name ?? "") }))
        batch.input = .ready([0, 2, 4])
        ProcedureQueue().addOperation(batch)
        await waitForFinish(batch)
        #expect(events.count == 3)
    }

    @Test func byDefaultAFailedElementFailsTheBatchOnceAllHaveFinished() async {
        let batch = BatchProcedure(via: evensOnly)
        batch.input = .ready([0, 1, 2, 4])
        ProcedureQueue().addOperation(batch)
        await waitForFinish(batch)
        #expect(batch.error as? TestError == TestError(tag: "odd 1"))
        #expect(batch.output.value?.error as? TestError == TestError(tag: "odd 1"))
        #expect(batch.children.allSatisfy { !$0.isCancelled })
    }

    @Test func aFailFastRuleCancelsTheElementsNotFinished() async {
        let gate = DispatchSemaphore(value: 0)
        let batch = BatchProcedure<AsyncTransformProcedure<Int, Int>>(
            failureRule: { _, _, error in .failFast(error ?? TestError(tag: "none")) },
            via: { _, element in
                AsyncTransformProcedure { value, finish in
                    if value == 0 { return finish(.failure(TestError(tag: "first"))) }
                    onThreadOfItsOwn {
                        _ = gate.wait(timeout: .now() + 10)
                        finish(.success(value))
                    }
                }
            })
        batch.maxConcurrentOperationCount = 1
        batch.input = .ready([0, 1, 2])
        ProcedureQueue().addOperation(batch)
        #expect(await eventually { batch.children.count == 3 && batch.children[1].isCancelled })
        gate.signal()
        gate.signal()
        await waitForFinish(batch)
        #expect(batch.error as? TestError == TestError(tag: "first"))
        let cancelled = batch.children.filter { $0.isCancelled }
        #expect(cancelled.count == 2)
    }

    @Test func aRuleCanSubstituteOrOmitFailedElements() async {
        let substituted = BatchProcedure<TransformProcedure<Int, Int>>(
            failureRule: { index, _, _ in .substitute(-index) }, via: evensOnly)
        substituted.input = .ready([0, 1, 2, 3])
        let omitted = BatchProcedure<TransformProcedure<Int, Int>>(
            failureRule: { _, _, _ in .omit }, via: evensOnly)
        omitted.input = .ready([0, 1, 2, 3])
        let queue = ProcedureQueue()
        queue.addOperations(substituted, omitted)
        await waitUntilIdle(queue)
        #expect(substituted.output.value?.value == [0, -1, 4, -3])
        #expect(substituted.error == nil)
        #expect(omitted.output.value?.value == [0, 4])
    }

    @Test func byDefaultElementsSkippedWithoutAnErrorAreLeftOut() async {
        let batch = BatchProcedure<TransformProcedure<Int, Int>> { _, element in
            let procedure = TransformProcedure<Int, Int> { $0 }
            if element < 0 { procedure.addCondition(BlockCondition { false }) }
            return procedure
        }
        batch.input = .ready([1, -1, 2])
        ProcedureQueue().addOperation(batch)
        await waitForFinish(batch)
        #expect(batch.error == nil)
        #expect(batch.output.value?.value == [1, 2])
    }

    @Test func withoutAnInputItFailsWithRequirementNotSatisfied() async {
        let batch = BatchProcedure(via: evensOnly)
        ProcedureQueue().addOperation(batch)
        await waitForFinish(batch)
        #expect((batch.error as? ProcedureKitError)?.context == .requirementNotSatisfied)
        #expect(batch.output.value?.error != nil)
    }

    @Test func anEmptyInputGivesAnEmptyOutput() async {
        let batch = BatchProcedure(via: evensOnly)
        batch.input = .ready([])
        ProcedureQueue().addOperation(batch)
        await waitForFinish(batch)
        #expect(batch.output.value?.value == [])
    }

    @Test func cancellingTheBatchCancelsItsElementsAndGivesNoOutput() async {
        let gate = DispatchSemaphore(value: 0)
        let batch = BatchProcedure<AsyncTransformProcedure<Int, Int>> { _, _ in
            AsyncTransformProcedure { value, finish in
                onThreadOfItsOwn {
                    _ = gate.wait(timeout: .now() + 300)
                    finish(.success(value))
                }
            }
        }
        batch.input = .ready([1, 2, 3])
        ProcedureQueue().addOperation(batch)
        #expect(await eventually { batch.children.count == 3 })
        batch.cancel()
        // The batch cancels its children as it handles its cancellation, in turn with its
        // other callbacks: the elements are let go only once that has happened.
        #expect(await eventually { batch.children.allSatisfy { $0.isCancelled } })
        for _ in 0..<3 { gate.signal() }
        await waitForFinish(batch)
        #expect(batch.output.isPending)
    }

    @Test func elementsThatAreGroupsGetTheirElementThroughABinding() async {
        let batch = BatchProcedure<BoundGroup<Int, Int>> { _, _ in
            let square = TransformProcedure<Int, Int> { $0 * $0 }
            let group = BoundGroup<Int, Int>(operations: [square])
            group.bind(to: square)
            group.bind(from: square)
            return group
        }
        batch.input = .ready([1, 2, 3])
        ProcedureQueue().addOperation(batch)
        await waitForFinish(batch)
        #expect(batch.output.value?.value == [1, 4, 9])
    }
}

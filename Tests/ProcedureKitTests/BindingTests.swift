import Foundation
import Testing

@testable import ProcedureKit

/// A group with an input and an output, bound to children given by the test.
final class BoundGroup<Input: Sendable, Output: Sendable>: GroupProcedure, InputProcedure,
    OutputProcedure, @unchecked Sendable
{
    private let values = Locked(
        (input: Pending<Input>.pending, output: Pending<ProcedureResult<Output>>.pending))

    var input: Pending<Input> {
        get { values.withLock { $0.input } }
        set { values.withLock { $0.input = newValue } }
    }

    var output: Pending<ProcedureResult<Output>> {
        get { values.withLock { $0.output } }
        set { values.withLock { $0.output = newValue } }
    }
}

@Suite("Binding")
struct BindingTests {

    @Test func bindToForwardsAnInjectedInputAndBindFromTakesTheOutput() {
        let source = ResultProcedure { 20 }
        let add = TransformProcedure<Int, Int> { $0 + 1 }
        let double = TransformProcedure<Int, Int> { $0 * 2 }.injectResult(from: add)
        let group = BoundGroup<Int, Int>(operations: [add, double])
        group.bind(to: add)
        group.bind(from: double)
        group.injectResult(from: source)
        let queue = ProcedureQueue()
        queue.addOperations(source, group)
        waitUntilIdle(queue)
        #expect(add.input.value == 20)
        #expect(group.output.value?.value == 42)
    }

    @Test func anInputSetByHandIsNotForwarded() {
        let child = TransformProcedure<Int, Int> { $0 }
        let group = BoundGroup<Int, Int>(operations: [child])
        group.bind(to: child)
        group.bind(from: child)
        group.input = .ready(1)
        ProcedureQueue().addOperation(group)
        waitForFinish(group)
        #expect(child.input.isPending)
        #expect(group.error as? ProcedureKitError == .requirementNotSatisfied())
    }

    @Test func bindingWorksThroughNestedGroups() {
        let source = ResultProcedure { "in" }
        let leaf = TransformProcedure<String, String> { $0 + ">leaf" }
        let inner = BoundGroup<String, String>(operations: [leaf])
        inner.bind(to: leaf)
        inner.bind(from: leaf)
        let outer = BoundGroup<String, String>(operations: [inner])
        outer.bind(to: inner)
        outer.bind(from: inner)
        outer.injectResult(from: source)
        let after = TransformProcedure<String, String> { $0 + ">after" }.injectResult(from: outer)
        let queue = ProcedureQueue()
        queue.addOperations(source, outer, after)
        waitUntilIdle(queue)
        #expect(outer.output.value?.value == "in>leaf")
        #expect(after.output.value?.value == "in>leaf>after")
    }

    @Test func aFailedBoundChildGivesTheGroupItsFailure() {
        let child = TransformProcedure<Int, Int> { _ in throw TestError(tag: "child") }
        let group = BoundGroup<Int, Int>(operations: [child])
        group.bind(to: child)
        group.bind(from: child)
        group.injectResult(from: ResultProcedure { 1 })
        let queue = ProcedureQueue()
        queue.addOperations(group.dependencies + [group])
        waitUntilIdle(queue)
        #expect(group.output.value?.error as? TestError == TestError(tag: "child"))
        #expect(group.error as? TestError == TestError(tag: "child"))
    }
}

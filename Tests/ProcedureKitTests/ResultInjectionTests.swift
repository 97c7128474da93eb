import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// An output procedure whose ending the test chooses.
final class ScriptedOutput: Procedure, OutputProcedure, @unchecked Sendable {
    enum Ending {
        case success(Int)
        case outputFailure
        case finishError
        case pendingOutput
        case cancelWithError
        case cancelWithoutError
    }

    private let ending: Ending
    private let stored = Locked(Pending<ProcedureResult<Int>>.pending)

    var output: Pending<ProcedureResult<Int>> {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }

    init(_ ending: Ending) {
        self.ending = ending
        super.init()
    }

    override func execute() {
        switch ending {
        case .success(let value): finish(withResult: .success(value))
        case .outputFailure: finish(withResult: .failure(TestError(tag: "output")))
        case .finishError: finish(with: TestError(tag: "finish"))
        case .pendingOutput: finish()
        case .cancelWithError:
            cancel(with: TestError(tag: "cancel"))
            finish()
        case .cancelWithoutError:
            cancel()
            finish()
        }
    }
}

/// Runs `dependency` into a `TransformProcedure` that doubles its input; returns the receiver.
private func inject(_ dependency: ScriptedOutput) -> TransformProcedure<Int, Int> {
    let receiver = TransformProcedure<Int, Int> { $0 * 2 }
    receiver.injectResult(from: dependency)
    let queue = ProcedureQueue()
    queue.addOperations(dependency, receiver)
    waitUntilIdle(queue)
    return receiver
}

@Suite("Result injection")
struct ResultInjectionTests {

    @Test func aSuccessfulOutputBecomesTheInput() {
        let receiver = inject(ScriptedOutput(.success(21)))
        #expect(receiver.input.value == 21)
        #expect(receiver.output.value?.value == 42)
    }

    @Test func theDependencyIsAddedByInjection() {
        let dependency = ScriptedOutput(.success(1))
        let receiver = TransformProcedure<Int, Int> { $0 }.injectResult(from: dependency)
        #expect(receiver.dependencies == [dependency])
    }

    // The failure mapping, one row per test.

    @Test func dependencyCancelledWithAnErrorCancelsWithDependencyCancelledWithError() {
        let receiver = inject(ScriptedOutput(.cancelWithError))
        #expect(!receiver.isExecuting && receiver.isCancelled)
        let error = receiver.error as? ProcedureKitError
        #expect(error?.context == .dependencyCancelledWithError)
        #expect(error?.error as? TestError == TestError(tag: "cancel"))
    }

    @Test func dependencyCancelledWithoutAnErrorCancelsWithDependenciesCancelled() {
        let receiver = inject(ScriptedOutput(.cancelWithoutError))
        #expect(receiver.isCancelled)
        #expect(receiver.error as? ProcedureKitError == .dependenciesCancelled())
    }

    @Test func dependencyFinishedWithAnErrorCancelsWithDependencyFinishedWithError() {
        let receiver = inject(ScriptedOutput(.finishError))
        #expect(receiver.isCancelled)
        let error = receiver.error as? ProcedureKitError
        #expect(error?.context == .dependencyFinishedWithError)
        #expect(error?.error as? TestError == TestError(tag: "finish"))
    }

    @Test func dependencyWithAFailureOutputCancelsWithDependencyFinishedWithError() {
        let receiver = inject(ScriptedOutput(.outputFailure))
        #expect(receiver.isCancelled)
        let error = receiver.error as? ProcedureKitError
        #expect(error?.context == .dependencyFinishedWithError)
        #expect(error?.error as? TestError == TestError(tag: "output"))
    }

    @Test func dependencyWithAPendingOutputCancelsWithRequirementNotSatisfied() {
        let receiver = inject(ScriptedOutput(.pendingOutput))
        #expect(receiver.isCancelled)
        #expect(receiver.error as? ProcedureKitError == .requirementNotSatisfied())
        #expect(receiver.input.isPending)
    }

    @Test func theInputIsSetBeforeTheReceiverCanBecomeReady() {
        let dependency = ScriptedOutput(.success(5))
        let seen = Recorder<Int?>()
        let receiver = TransformProcedure<Int, Int> { $0 }
        receiver.injectResult(from: dependency)
        receiver.addCondition(
            BlockCondition {
                seen.append(receiver.input.value)
                return true
            })
        let queue = ProcedureQueue()
        queue.addOperations(receiver, dependency)
        waitUntilIdle(queue)
        #expect(seen.all == [5])
    }

    @Test func anOptionalOutputIsUnwrapped() {
        let some = ResultProcedure<Int?> { 7 }
        let none = ResultProcedure<Int?> { nil }
        let fromSome = TransformProcedure<Int, Int> { $0 }.injectResult(from: some)
        let fromNone = TransformProcedure<Int, Int> { $0 }.injectResult(from: none)
        let queue = ProcedureQueue()
        queue.addOperations(some, none, fromSome, fromNone)
        waitUntilIdle(queue)
        #expect(fromSome.output.value?.value == 7)
        #expect(fromNone.isCancelled)
        #expect(fromNone.error as? ProcedureKitError == .requirementNotSatisfied())
    }

    @Test func injectionViaATransform() {
        let number = ResultProcedure { 41 }
        let text = TransformProcedure<String, String> { $0 + "!" }
        text.injectResult(from: number) { "\($0 + 1)" }
        let failing = TransformProcedure<String, String> { $0 }
        failing.injectResult(from: number) { _ in throw TestError(tag: "transform") }
        let queue = ProcedureQueue()
        queue.addOperations(number, text, failing)
        waitUntilIdle(queue)
        #expect(text.output.value?.value == "42!")
        #expect(failing.isCancelled)
        #expect(failing.error as? TestError == TestError(tag: "transform"))
    }

    @Test func aTransformWithoutInputFailsWithRequirementNotSatisfied() {
        let transform = TransformProcedure<Int, Int> { $0 }
        ProcedureQueue().addOperation(transform)
        waitForFinish(transform)
        #expect(transform.error as? ProcedureKitError == .requirementNotSatisfied())
        #expect(transform.output.value?.error as? ProcedureKitError == .requirementNotSatisfied())
    }

    @Test func resultProcedureOutputsWhatItsBlockReturnsOrThrows() {
        let good = ResultProcedure { "value" }
        let bad = ResultProcedure<String> { throw TestError(tag: "bad") }
        let queue = ProcedureQueue()
        queue.addOperations(good, bad)
        waitUntilIdle(queue)
        #expect(good.output.value?.value == "value")
        #expect(bad.output.value?.error as? TestError == TestError(tag: "bad"))
        #expect(bad.error as? TestError == TestError(tag: "bad"))
    }

    @Test func pendingAndResultHelpers() {
        #expect(Pending<Int>.pending.isPending)
        #expect(Pending(3).value == 3)
        #expect(Pending<Int>(nil).isPending)
        #expect(ProcedureResult<Int>.success(1).value == 1)
        #expect(ProcedureResult<Int>.failure(TestError()).error as? TestError == TestError())
        #expect(throws: TestError.self) { try ProcedureResult<Int>.failure(TestError()).get() }
    }
}

@Suite("Injection into any procedure")
struct InjectionIntoTests {

    /// A procedure with several named values instead of one input.
    final class Collector: Procedure, @unchecked Sendable {
        let values = Locked([String: Int]())
        let seenAtExecute = Locked([String: Int]())
        override func execute() {
            seenAtExecute.withLock { $0 = values.withLock { $0 } }
            finish()
        }
    }

    @Test func namedValuesArriveBeforeTheReceiverExecutes() {
        let first = ResultProcedure { 1 }
        let second = ResultProcedure { 2 }
        let collector = Collector()
        collector.injectResult(from: first) { receiver, value in
            receiver.values.withLock { $0["a"] = value }
        }
        collector.injectResult(from: second) { receiver, value in
            receiver.values.withLock { $0["b"] = value }
        }
        let queue = ProcedureQueue()
        queue.addOperations(collector, first, second)
        waitUntilIdle(queue)
        #expect(collector.seenAtExecute.withLock { $0 } == ["a": 1, "b": 2])
        #expect(collector.dependencies.count == 2)
    }

    @Test func aFailedDependencyCancelsTheReceiverWithTheUsualMapping() {
        let failing = ResultProcedure<Int> { throw TestError(tag: "x") }
        let collector = Collector()
        collector.injectResult(from: failing) { _, _ in }
        let thrower = Collector()
        thrower.injectResult(from: ResultProcedure { 1 }) { _, _ in throw TestError(tag: "inject") }
        let queue = ProcedureQueue()
        queue.addOperations([collector, failing, thrower] + thrower.dependencies)
        waitUntilIdle(queue)
        #expect((collector.error as? ProcedureKitError)?.context == .dependencyFinishedWithError)
        #expect(thrower.error as? TestError == TestError(tag: "inject"))
    }
}

@Suite("Injection from finished dependencies")
struct InjectionFromFinishedTests {

    @Test func aDependencyThatHasFinishedInjectsAtOnce() {
        let source = ResultProcedure { 20 }
        let queue = ProcedureQueue()
        queue.addOperation(source)
        waitForFinish(source)
        let receiver = TransformProcedure<Int, Int> { $0 + 1 }.injectResult(from: source)
        #expect(receiver.input.value == 20)
        queue.addOperation(receiver)
        waitForFinish(receiver)
        #expect(receiver.output.value?.value == 21)
    }

    @Test func aFinishedFailedDependencyCancelsAtOnce() {
        let source = ResultProcedure<Int> { throw TestError(tag: "early") }
        let queue = ProcedureQueue()
        queue.addOperation(source)
        waitForFinish(source)
        let receiver = TransformProcedure<Int, Int> { $0 }.injectResult(from: source)
        #expect(receiver.isCancelled)
        #expect((receiver.error as? ProcedureKitError)?.context == .dependencyFinishedWithError)
        queue.addOperation(receiver)
        waitForFinish(receiver)
        #expect((receiver.error as? ProcedureKitError)?.context == .dependencyFinishedWithError)
    }
}

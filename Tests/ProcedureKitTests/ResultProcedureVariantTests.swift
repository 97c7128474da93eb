import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

@Suite("AsyncResultProcedure and AsyncTransformProcedure")
struct AsyncResultProcedureTests {

    @Test func theCompletionGivesTheOutputFromAnotherThread() async {
        let result = AsyncResultProcedure<String> { finish in
            DispatchQueue.global().async { finish(.success("later")) }
        }
        let transform = AsyncTransformProcedure<String, Int> { input, finish in
            DispatchQueue.global().async { finish(.success(input.count)) }
        }.injectResult(from: result)
        let queue = ProcedureQueue()
        queue.addOperations(result, transform)
        await waitUntilIdle(queue)
        #expect(result.output.value?.value == "later")
        #expect(transform.output.value?.value == 5)
    }

    @Test func aFailureFinishesWithItsErrorAndOnlyTheFirstCallCounts() async {
        let procedure = AsyncResultProcedure<Int> { finish in
            finish(.failure(TestError(tag: "first")))
            finish(.success(2))
        }
        ProcedureQueue().addOperation(procedure)
        await waitForFinish(procedure)
        #expect(procedure.error as? TestError == TestError(tag: "first"))
        #expect(procedure.output.value?.error as? TestError == TestError(tag: "first"))
    }

    @Test func withoutAnInputTheTransformIsNotCalled() async {
        let called = Recorder<String>()
        let transform = AsyncTransformProcedure<Int, Int> { input, finish in
            called.append("called")
            finish(.success(input))
        }
        ProcedureQueue().addOperation(transform)
        await waitForFinish(transform)
        #expect(called.all.isEmpty)
        #expect((transform.error as? ProcedureKitError)?.context == .requirementNotSatisfied)
    }
}

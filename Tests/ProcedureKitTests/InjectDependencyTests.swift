import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

@Suite("inject(dependency:block:)")
struct InjectDependencyTests {

    final class Labelled: Procedure, @unchecked Sendable {
        let label = Locked("")
        override func execute() { finish() }
    }

    @Test func theBlockGetsTheReceiverTheDependencyAndItsErrorBeforeTheReceiverRuns() async {
        let dependency = TestProcedure(name: "source", error: TestError(tag: "broke"))
        let receiver = Labelled()
        let seen = Recorder<String>()
        receiver.inject(dependency: dependency) { receiver, dependency, error in
            seen.append("\(dependency.name ?? "") \((error as? TestError)?.tag ?? "no error")")
            receiver.label.withLock { $0 = "injected" }
        }
        receiver.addWillExecuteBlockObserver { receiver in
            seen.append("executes with \(receiver.label.withLock { $0 })")
        }
        #expect(receiver.dependencies.count == 1)
        let queue = ProcedureQueue()
        queue.addOperations(dependency, receiver)
        await waitUntilIdle(queue)
        #expect(seen.all == ["source broke", "executes with injected"])
    }

    @Test func theBlockDecidesWhatAFailureMeans() async {
        let dependency = TestProcedure(error: TestError(tag: "broke"))
        let receiver = TestProcedure()
        receiver.inject(dependency: dependency) { receiver, _, error in
            if let error { receiver.cancel(with: error) }
        }
        let queue = ProcedureQueue()
        queue.addOperations(dependency, receiver)
        await waitUntilIdle(queue)
        #expect(!receiver.didExecute)
        #expect(receiver.error as? TestError == TestError(tag: "broke"))
    }

    @Test func aDependencyThatHasFinishedIsInjectedAtOnce() async {
        let dependency = TestProcedure(name: "done")
        ProcedureQueue().addOperation(dependency)
        await waitForFinish(dependency)
        let seen = Recorder<String>()
        TestProcedure().inject(dependency: dependency) { _, dependency, _ in
            seen.append(dependency.name ?? "")
        }
        #expect(seen.all == ["done"])
    }
}

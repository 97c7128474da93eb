import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// `cancel(with:)` fails the procedure at once, as in the original (issue 26, item 10); a
/// finishing error is settled as the procedure starts to finish.
@Suite("failed and error")
struct FailureReportingTests {

    @Test func cancellingWithAnErrorFailsTheProcedureAtOnce() async {
        let seen = Recorder<String>()
        let procedure = HeldProcedure()
        procedure.addWillFinishBlockObserver { procedure, _ in
            seen.append("will finish: failed \(procedure.failed)")
        }
        ProcedureQueue().addOperation(procedure)
        procedure.started.wait()
        procedure.cancel(with: TestError(tag: "stop"))
        #expect(procedure.isCancelled)
        #expect(procedure.failed)
        #expect(procedure.error as? TestError == TestError(tag: "stop"))
        procedure.release()
        await waitForFinish(procedure)
        #expect(seen.all == ["will finish: failed true"])
        #expect(procedure.failed)
        #expect(procedure.error as? TestError == TestError(tag: "stop"))
    }

    @Test func failedAgreesWithErrorInTheWillFinishHook() async {
        final class Hooked: Procedure, @unchecked Sendable {
            let seen = Recorder<Bool>()
            override func execute() { finish(with: TestError()) }
            override func procedureWillFinish(with error: (any Error)?) {
                seen.append(failed == (self.error != nil))
            }
        }
        let procedure = Hooked()
        ProcedureQueue().addOperation(procedure)
        await waitForFinish(procedure)
        #expect(procedure.seen.all == [true])
    }
}

import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

@Suite("IgnoreErrorsProcedure")
struct IgnoreErrorsProcedureTests {

    @Test func theWrapperFinishesWithoutTheErrorAndTheProcedureKeepsIt() async {
        let failing = TestProcedure(error: TestError(tag: "ignored"))
        let wrapper = IgnoreErrorsProcedure(failing)
        ProcedureQueue().addOperation(wrapper)
        await waitForFinish(wrapper)
        #expect(wrapper.error == nil)
        #expect(!wrapper.failed)
        #expect(failing.error as? TestError == TestError(tag: "ignored"))
        #expect(wrapper.name == "IgnoreErrors<TestProcedure>")
    }

    @Test func cancellingTheWrapperWithAnErrorStillFailsIt() async {
        let wrapper = IgnoreErrorsProcedure(DelayProcedure(by: 600))
        ProcedureQueue().addOperation(wrapper)
        #expect(await eventually { wrapper.isExecuting })
        wrapper.cancel(with: TestError(tag: "stop"))
        await waitForFinish(wrapper)
        #expect(wrapper.error as? TestError == TestError(tag: "stop"))
    }
}

import Testing

@testable import ProcedureKit

/// A composed procedure takes the wrapped procedure's input and gives its output, as the
/// original's does (issue 26, "an output on IgnoreErrorsProcedure").
@Suite("Composed procedures in result injection")
struct ComposedInjectionTests {
    @Test func anIgnoreErrorsProcedureGivesTheWrappedOutputToTheNext() {
        let ignoring = IgnoreErrorsProcedure(ResultProcedure { 21 })
        let double = TransformProcedure<Int, Int> { $0 * 2 }.injectResult(from: ignoring)
        ProcedureQueue().addOperations([ignoring, double])
        waitForFinish(ignoring, double)
        #expect(ignoring.output.value?.value == 21)
        #expect(double.output.value?.value == 42)
    }

    @Test func aFailureIsIgnoredAndStillTheOutput() {
        let ignoring = IgnoreErrorsProcedure(ResultProcedure<Int> { throw TestError() })
        ProcedureQueue().addOperation(ignoring)
        waitForFinish(ignoring)
        #expect(ignoring.error == nil)
        #expect(ignoring.output.value?.error as? TestError == TestError())
    }

    @Test func anInputInjectedIntoAComposedProcedureReachesTheWrappedOne() {
        let source = ResultProcedure { "procflow" }
        let composed = ComposedProcedure(TransformProcedure<String, Int> { $0.count })
        composed.injectResult(from: source)
        ProcedureQueue().addOperations([source, composed])
        waitForFinish(source, composed)
        #expect(composed.operation.input.value == "procflow")
        #expect(composed.output.value?.value == 8)
    }
}

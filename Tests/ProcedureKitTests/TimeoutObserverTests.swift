import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

@Suite("TimeoutObserver")
struct TimeoutObserverTests {

    @Test(arguments: [0.0, -1.0, -.infinity])
    func anIntervalThatIsNotPositiveSetsNoLimit(interval: TimeInterval) async {
        let procedure = DelayProcedure(by: 0.05)
        procedure.addObserver(TimeoutObserver(by: interval))
        ProcedureQueue().addOperation(procedure)
        await waitForFinish(procedure)
        #expect(!procedure.isCancelled)
        #expect(procedure.error == nil)
    }

    @Test func aDateCancelsTheProcedureWhenItPasses() async {
        let procedure = DelayProcedure(by: 600)
        procedure.addObserver(TimeoutObserver(until: Date().addingTimeInterval(0.5)))
        ProcedureQueue().addOperation(procedure)
        await waitForFinish(procedure)
        #expect(procedure.isCancelled)
        let error = procedure.error as? ProcedureKitError
        guard case .timedOut(let after)? = error?.context else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(after > 0 && after <= 0.5)
    }

    @Test func aDateThatHasPassedSetsNoLimit() async {
        let procedure = DelayProcedure(by: 0.05)
        procedure.addObserver(TimeoutObserver(until: Date().addingTimeInterval(-1)))
        ProcedureQueue().addOperation(procedure)
        await waitForFinish(procedure)
        #expect(!procedure.isCancelled)
    }
}

@Suite("Timeout messages")
struct TimeoutMessageTests {

    @Test(arguments: [Double.infinity, -.infinity, .nan, 1e300])
    func anyIntervalReadsAsASentence(interval: Double) async {
        #expect(ProcedureKitError.timedOut(after: interval).description.hasSuffix(" s."))
    }
}

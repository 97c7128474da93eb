import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

@Suite("RepeatProcedure")
struct RepeatProcedureTests {

    @Test func repeatsUntilTheBodyReturnsNil() async {
        let ran = Recorder<Int>()
        let repeated = RepeatProcedure { n -> BlockProcedure? in
            n <= 3 ? BlockProcedure { ran.append(n) } : nil
        }
        ProcedureQueue().addOperation(repeated)
        await waitForFinish(repeated)
        #expect(ran.all == [1, 2, 3])
        #expect(repeated.count == 3)
        #expect(repeated.error == nil)
    }

    @Test func stopsAtItsLimitAndWaitsBetweenProcedures() async {
        let ran = Recorder<Int>()
        let repeated = RepeatProcedure(max: 3, wait: .constant(0.05)) { n in
            BlockProcedure { ran.append(n) }
        }
        let started = Date()
        ProcedureQueue().addOperation(repeated)
        await waitForFinish(repeated)
        #expect(ran.all == [1, 2, 3])
        #expect(Date().timeIntervalSince(started) >= 0.1)
    }

    @Test func aFailureDoesNotStopItButFailsIt() async {
        let repeated = RepeatProcedure(max: 3) { n in
            TestProcedure(error: n == 1 ? TestError(tag: "one") : nil)
        }
        ProcedureQueue().addOperation(repeated)
        await waitForFinish(repeated)
        #expect(repeated.count == 3)
        #expect(repeated.error as? TestError == TestError(tag: "one"))
    }

    @Test func observersHearEveryProcedureIncludingTheFirst() async {
        let events = Recorder<String>()
        let repeated = RepeatProcedure(max: 2) { n -> TestProcedure in
            TestProcedure(name: "run \(n)")
        }
        repeated.addObserver(RecordingObserver(label: "R", events: events))
        ProcedureQueue().addOperation(repeated)
        await waitForFinish(repeated)
        #expect(
            events.all.filter { $0.contains("will add") } == [
                "R will add run 1", "R will add run 2",
            ])
    }

    @Test func everyProcedureGetsTheInputAndTheOutputIsTheLast() async {
        let source = ResultProcedure { 10 }
        let repeated = RepeatProcedure(max: 2) { n in
            TransformProcedure<Int, Int> { $0 + n }
        }.injectResult(from: source)
        let queue = ProcedureQueue()
        queue.addOperations(source, repeated)
        await waitUntilIdle(queue)
        #expect(repeated.output.value?.value == 12)
    }

    @Test func cancellingStopsTheRepeat() async {
        let repeated = RepeatProcedure { _ in DelayProcedure(by: 0.02) }
        ProcedureQueue().addOperation(repeated)
        #expect(await eventually { repeated.count >= 2 })
        repeated.cancel()
        await waitForFinish(repeated)
        #expect(repeated.isCancelled)
    }
}

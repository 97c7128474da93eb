import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// Payloads of test procedures, each after `delay`: the original's `RepeatTestCase`'s
/// `createIterator()`.
private func payloads(
    delay: Delay = .by(0.01)
) -> AnyIterator<RepeatProcedurePayload<TestProcedure>> {
    AnyIterator { RepeatProcedurePayload(operation: TestProcedure(), delay: delay) }
}

/// `target` test procedures, all but the last failing with `error`: the original's
/// `createIterator(succeedsAfterCount:)`.
private func procedures(succeedingAfter target: Int, error: TestError) -> AnyIterator<TestProcedure>
{
    var count = 0
    return AnyIterator {
        guard count < target else { return nil }
        defer { count += 1 }
        return TestProcedure(error: count < target - 1 ? error : nil)
    }
}

/// The names of the operations the repeat's will-add observers heard, in turn.
private func namesAdded(running repeated: Procedure) -> [String] {
    let events = Recorder<String>()
    repeated.addObserver(RecordingObserver(label: "R", events: events))
    ProcedureQueue().addOperation(repeated)
    waitForFinish(repeated)
    return events.all.compactMap { event in
        event.hasPrefix("R will add ") ? String(event.dropFirst("R will add ".count)) : nil
    }
}

/// How long `repeated` takes to run to its finish, added to a queue of its own.
private func secondsRunning(_ repeated: Procedure) -> TimeInterval {
    let started = Date()
    ProcedureQueue().addOperation(repeated)
    waitForFinish(repeated, timeout: 60)
    return Date().timeIntervalSince(started)
}

/// The original's RepeatProcedureTests, and what the repeat's iterators, payloads and configure
/// blocks do here.
@Suite("RepeatProcedure iterators, payloads and configure blocks")
struct RepeatProcedurePayloadTests {

    // MARK: - The original's tests

    @Test func initWithMaxAndPayloadIterator() {
        let repeated = RepeatProcedure(max: 2, iterator: payloads())
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(repeated.error == nil)
        #expect(repeated.count == 2)
    }

    @Test func initWithMaxAndDelayIterator() {
        let repeated = RepeatProcedure(
            max: 2, delay: Delay.Iterator.immediate, iterator: AnyIterator { TestProcedure() })
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(repeated.error == nil)
        #expect(repeated.count == 2)
    }

    @Test func initWithMaxAndWaitStrategy() {
        let repeated = RepeatProcedure(
            max: 2, wait: .constant(0.001), iterator: AnyIterator { TestProcedure() })
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(repeated.error == nil)
        #expect(repeated.count == 2)
    }

    @Test func initWithMaxAndBody() {
        let executed = Recorder<Int>()
        let repeated = RepeatProcedure(max: 2) { BlockProcedure { executed.append(1) } }
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(repeated.error == nil)
        #expect(repeated.count == 2)
        #expect(executed.count == 2)
    }

    @Test func initWithNoMaxAndDelayIterator() {
        let error = TestError(tag: "expected")
        let repeated = RepeatProcedure(
            delay: Delay.Iterator.immediate,
            iterator: procedures(succeedingAfter: 2, error: error))
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(repeated.count == 2)
        #expect(repeated.error as? TestError == error)
    }

    @Test func initWithNoMaxAndWaitStrategy() {
        let error = TestError(tag: "expected")
        let repeated = RepeatProcedure(
            wait: .constant(0.001), iterator: procedures(succeedingAfter: 2, error: error))
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(repeated.count == 2)
        #expect(repeated.error as? TestError == error)
    }

    @Test func appendedConfigureBlocksAllRun() {
        let ran = Recorder<String>()
        let repeated = RepeatProcedure { TestProcedure() }
        repeated.append(configureBlock: { _ in ran.append("first") })
        repeated.append(configureBlock: { _ in ran.append("second") })
        repeated.configure(TestProcedure())
        #expect(ran.all == ["first", "second"])
    }

    @Test func aReplacedConfigureBlockNoLongerRuns() {
        let ran = Recorder<String>()
        let repeated = RepeatProcedure { TestProcedure() }
        repeated.append(configureBlock: { _ in ran.append("appended") })
        repeated.replace(configureBlock: { _ in ran.append("replacement") })
        repeated.configure(TestProcedure())
        #expect(ran.all == ["replacement"])
    }

    /// The original ignores the first payload's configure block (it counts 2 here); here it
    /// configures the first procedure too.
    @Test func aPayloadsConfigureBlockConfiguresItsProcedureTheFirstIncluded() {
        let configured = Recorder<Int>()
        let repeated = RepeatProcedure(
            max: 3,
            iterator: AnyIterator {
                RepeatProcedurePayload(operation: TestProcedure()) { _ in configured.append(1) }
            })
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(repeated.error == nil)
        #expect(repeated.count == 3)
        #expect(configured.count == 3)
    }

    @Test func theInputGoesToEveryProcedure() {
        let source = ResultProcedure { "ProcedureKit" }
        let repeated = RepeatProcedure(
            max: 3,
            iterator: AnyIterator {
                RepeatProcedurePayload(
                    operation: TransformProcedure<String, String> { "Hello \($0)" },
                    delay: .by(0.01))
            }
        ).injectResult(from: source)
        let queue = ProcedureQueue()
        queue.addOperations(source, repeated)
        waitUntilIdle(queue)
        #expect(repeated.error == nil)
        let outputs = repeated.children.compactMap {
            ($0 as? TransformProcedure<String, String>)?.output.value?.value
        }
        #expect(outputs == ["Hello ProcedureKit", "Hello ProcedureKit", "Hello ProcedureKit"])
    }

    // MARK: - Bodies

    @Test func aBodyWithoutAndWithTheNumberBothCompile() {
        let plain = RepeatProcedure(max: 2) { TestProcedure(name: "plain") }
        let numbered = RepeatProcedure(max: 2) { n in TestProcedure(name: "run \(n)") }
        #expect(namesAdded(running: plain) == ["plain", "plain"])
        #expect(namesAdded(running: numbered) == ["run 1", "run 2"])
    }

    @Test func aBodyReturningNilEndsTheRepeat() {
        let made = Recorder<Int>()
        let repeated = RepeatProcedure { () -> TestProcedure? in
            made.append(1)
            return made.count <= 3 ? TestProcedure() : nil
        }
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(repeated.count == 3)
    }

    // MARK: - Payloads

    @Test func aPayloadWithAnotherDelayKeepsItsProcedureAndConfigureBlock() {
        let configured = Recorder<String>()
        let procedure = TestProcedure()
        let payload = RepeatProcedurePayload(operation: procedure, delay: .by(1)) { _ in
            configured.append("configured")
        }
        let moved = payload.set(delay: .by(2))
        #expect(moved.operation === procedure)
        #expect(moved.delay == .by(2))
        #expect(payload.delay == .by(1))
        moved.configure?(procedure)
        #expect(configured.all == ["configured"])
        #expect(payload.set(delay: nil).delay == nil)
    }

    // MARK: - Configure blocks

    @Test func theConfigureBlockPreparesEveryProcedureTheFirstIncludedBeforeItIsAdded() {
        let repeated = RepeatProcedure(max: 3) { TestProcedure(name: "made") }
        repeated.append(configureBlock: { $0.name = "configured" })
        #expect(namesAdded(running: repeated) == ["configured", "configured", "configured"])
    }

    @Test func aPayloadsConfigureBlockReplacesTheAppendedOnes() {
        var number = 0
        let repeated = RepeatProcedure(
            max: 3,
            iterator: AnyIterator { () -> RepeatProcedurePayload<TestProcedure>? in
                number += 1
                guard number == 2 else { return RepeatProcedurePayload(operation: TestProcedure()) }
                return RepeatProcedurePayload(operation: TestProcedure()) { $0.name = "replaced" }
            })
        repeated.append(configureBlock: { $0.name = "appended" })
        #expect(namesAdded(running: repeated) == ["appended", "replaced", "replaced"])
    }

    @Test func theOutputGoesToTheCurrentAndEveryNextProcedure() {
        let repeated = RepeatProcedure(max: 2) { TransformProcedure<String, String> { $0 } }
        repeated.output = .ready(.success("preset"))
        #expect(repeated.current.output.value?.value == "preset")
        let next = TransformProcedure<String, String> { $0 }
        repeated.configure(next)
        #expect(next.output.value?.value == "preset")
    }

    // MARK: - Previous and current

    @Test func previousIsTheProcedureBeforeTheCurrentOne() {
        let repeated = RepeatProcedure(max: 3) { n in TestProcedure(name: "run \(n)") }
        #expect(repeated.previous == nil)
        #expect(repeated.current.name == "run 1")
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(repeated.previous?.name == "run 2")
        #expect(repeated.current.name == "run 3")
    }

    // MARK: - Delays

    @Test func aPayloadsDelayIsWaitedForBeforeItsProcedure() {
        let repeated = RepeatProcedure(max: 3, iterator: payloads(delay: .by(0.1)))
        repeated.append(configureBlock: { $0.name = "run" })
        let started = Date()
        let names = namesAdded(running: repeated)
        #expect(Date().timeIntervalSince(started) >= 0.2)
        #expect(names == ["run", "Delay for 0.1 seconds", "run", "Delay for 0.1 seconds", "run"])
    }

    @Test func theFirstPayloadsDelayIsNotWaitedFor() {
        let repeated = RepeatProcedure(max: 1, iterator: payloads(delay: .by(600)))
        let started = Date()
        #expect(namesAdded(running: repeated) == ["TestProcedure"])
        #expect(Date().timeIntervalSince(started) < 300)
    }

    @Test func aDelayAlreadyOverAddsNoPause() {
        var delays = [Delay.by(0), .until(.distantPast)].makeIterator()
        let repeated = RepeatProcedure(
            max: 3, delay: AnyIterator { delays.next() }, iterator: AnyIterator { TestProcedure() })
        #expect(namesAdded(running: repeated) == Array(repeating: "TestProcedure", count: 3))
    }

    /// The original pairs a delay iterator's first delay with the first procedure, which never
    /// waits, so it would wait 30 s here.
    @Test func aDelayIteratorsFirstDelayPrecedesTheSecondProcedure() {
        var delays = [Delay.by(0.3), .by(30)].makeIterator()
        let repeated = RepeatProcedure(
            max: 2, delay: AnyIterator { delays.next() }, iterator: AnyIterator { TestProcedure() })
        let elapsed = secondsRunning(repeated)
        #expect(elapsed >= 0.3 && elapsed < 20)
    }

    /// As with delays: the original would wait `initial + increment` before the second.
    @Test func aWaitStrategysFirstWaitPrecedesTheSecondProcedure() {
        let repeated = RepeatProcedure(
            max: 2, wait: .incrementing(initial: 0.3, increment: 30),
            iterator: AnyIterator { TestProcedure() })
        let elapsed = secondsRunning(repeated)
        #expect(elapsed >= 0.3 && elapsed < 20)
    }

    // MARK: - Adding the next procedure

    @Test func aSubclassAddsTheNextProcedureFromItsChildOverride() {
        let repeated = AnsweringRepeat(max: 3) { n in TestProcedure(name: "run \(n)") }
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(repeated.answers.all == [true, true, false])
        #expect(repeated.count == 3)
        #expect(repeated.error == nil)
    }

    @Test func addingTheNextProcedureWhileTheRepeatRuns() {
        let repeated = RepeatProcedure(max: 2) { HeldProcedure() }
        #expect(!repeated.addNextOperation())
        let first = repeated.current
        ProcedureQueue().addOperation(repeated)
        #expect(first.started.wait(timeout: .now() + 10) == .success)
        #expect(!repeated.addNextOperation(false))
        #expect(repeated.count == 1)
        #expect(repeated.addNextOperation())
        #expect(repeated.count == 2)
        #expect(repeated.previous === first)
        let second = repeated.current
        #expect(second.started.wait(timeout: .now() + 10) == .success)
        #expect(!repeated.addNextOperation())
        first.release()
        second.release()
        waitForFinish(repeated)
        #expect(repeated.count == 2)
        #expect(!repeated.addNextOperation())
    }

    @Test func aCancelledRepeatAddsNoNextProcedure() {
        let repeated = RepeatProcedure { HeldProcedure() }
        let first = repeated.current
        ProcedureQueue().addOperation(repeated)
        #expect(first.started.wait(timeout: .now() + 10) == .success)
        repeated.cancel()
        #expect(!repeated.addNextOperation())
        first.release()
        waitForFinish(repeated)
        #expect(repeated.count == 1)
    }

    @Test func callsFromManyThreadsAddOneProcedureEach() {
        let gate = DispatchSemaphore(value: 0)
        // None finishes before the gate opens; then each passes it on.
        let repeated = RepeatProcedure { n -> BlockProcedure? in
            guard n <= 10 else { return nil }
            return BlockProcedure {
                gate.wait()
                gate.signal()
            }
        }
        let first = repeated.current
        ProcedureQueue().addOperation(repeated)
        #expect(eventually { first.isExecuting })
        let answers = Recorder<Bool>()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            answers.append(repeated.addNextOperation())
        }
        #expect(repeated.count == 1 + answers.all.filter { $0 }.count)
        gate.signal()
        waitForFinish(repeated)
        #expect(repeated.count == 10)
    }
}

/// Adds the next procedure itself as each current one is about to finish, recording what
/// `addNextOperation()` answered.
private final class AnsweringRepeat: RepeatProcedure<TestProcedure>, @unchecked Sendable {
    // @unchecked Sendable: adds one constant, a thread-safe recorder.
    let answers = Recorder<Bool>()

    override func child(_ child: Procedure, willFinishWithError error: (any Error)?) {
        if child === current { answers.append(addNextOperation()) }
        super.child(child, willFinishWithError: error)
    }
}

import Foundation
import Testing

@testable import ProcedureKit

/// Fails its first `failures` attempts (counted across instances), then outputs the attempt.
final class FlakyAttempt: Procedure, InputProcedure, OutputProcedure, @unchecked Sendable {
    let attemptNumber: Int
    let failures: Int
    private let values = Locked(
        (input: Pending<String>.pending, output: Pending<ProcedureResult<String>>.pending))

    var input: Pending<String> {
        get { values.withLock { $0.input } }
        set { values.withLock { $0.input = newValue } }
    }

    var output: Pending<ProcedureResult<String>> {
        get { values.withLock { $0.output } }
        set { values.withLock { $0.output = newValue } }
    }

    init(attempt: Int, failures: Int) {
        attemptNumber = attempt
        self.failures = failures
        super.init()
    }

    override func execute() {
        if attemptNumber <= failures {
            finish(withResult: .failure(TestError(tag: "attempt \(attemptNumber)")))
        } else {
            finish(withResult: .success("\(input.value ?? "no input") on attempt \(attemptNumber)"))
        }
    }
}

@Suite("RetryProcedure")
struct RetryProcedureTests {

    @Test func retriesAfterFailuresUntilAnAttemptSucceeds() {
        let retry = RetryProcedure(maxAttempts: 5) { FlakyAttempt(attempt: $0, failures: 2) }
        ProcedureQueue().addOperation(retry)
        waitForFinish(retry)
        #expect(retry.attempt == 3)
        #expect(retry.error == nil)
        #expect(retry.output.value?.value == "no input on attempt 3")
    }

    @Test func stopsAtTheMaximumWithTheLastError() {
        let retry = RetryProcedure(maxAttempts: 3) { FlakyAttempt(attempt: $0, failures: 10) }
        ProcedureQueue().addOperation(retry)
        waitForFinish(retry)
        #expect(retry.attempt == 3)
        #expect(retry.error as? TestError == TestError(tag: "attempt 3"))
    }

    @Test func doesNotRetryASuccess() {
        let made = Recorder<Int>()
        let retry = RetryProcedure(maxAttempts: 3) { attempt in
            made.append(attempt)
            return FlakyAttempt(attempt: attempt, failures: 0)
        }
        ProcedureQueue().addOperation(retry)
        waitForFinish(retry)
        #expect(made.all == [1])
    }

    @Test func doesNotRetryAnAttemptSkippedByItsCondition() {
        let made = Recorder<Int>()
        let retry = RetryProcedure(maxAttempts: 3) { attempt in
            made.append(attempt)
            let procedure = FlakyAttempt(attempt: attempt, failures: 10)
            procedure.addCondition(BlockCondition { false })
            return procedure
        }
        ProcedureQueue().addOperation(retry)
        waitForFinish(retry)
        #expect(made.all == [1])
        #expect(retry.error == nil)
    }

    @Test func doesNotRetryOnceCancelled() {
        let made = Recorder<Int>()
        let retry = RetryProcedure(maxAttempts: 3) { attempt in
            made.append(attempt)
            return DelayProcedure(by: 60)
        }
        ProcedureQueue().addOperation(retry)
        #expect(eventually { retry.current.isExecuting })
        retry.cancel()
        waitForFinish(retry)
        #expect(made.all == [1])
    }

    @Test func everyAttemptGetsTheInjectedInput() {
        let source = ResultProcedure { "hello" }
        let retry = RetryProcedure(maxAttempts: 3) { FlakyAttempt(attempt: $0, failures: 1) }
        retry.injectResult(from: source)
        let queue = ProcedureQueue()
        queue.addOperations(source, retry)
        waitUntilIdle(queue)
        #expect(retry.output.value?.value == "hello on attempt 2")
    }

    @Test func observersHearEveryAttemptTheFirstIncluded() {
        let events = Recorder<String>()
        let retry = RetryProcedure(maxAttempts: 3) { attempt -> FlakyAttempt in
            let procedure = FlakyAttempt(attempt: attempt, failures: 2)
            procedure.name = "attempt \(attempt)"
            return procedure
        }
        retry.addObserver(RecordingObserver(label: "R", events: events))
        ProcedureQueue().addOperation(retry)
        waitForFinish(retry)
        #expect(
            events.all.filter { $0.contains("will add") } == [
                "R will add attempt 1", "R will add attempt 2", "R will add attempt 3",
            ])
    }

    @Test func waitsBetweenAttempts() {
        let retry = RetryProcedure(maxAttempts: 3, wait: .constant(0.1)) {
            FlakyAttempt(attempt: $0, failures: 2)
        }
        let started = Date()
        ProcedureQueue().addOperation(retry)
        waitForFinish(retry)
        #expect(Date().timeIntervalSince(started) >= 0.2)
        #expect(retry.error == nil)
    }

    @Test(arguments: [
        (RetryProcedure<Procedure>.WaitStrategy.immediate, [0.0, 0, 0, 0]),
        (.constant(2), [2.0, 2, 2, 2]),
        (.incrementing(initial: 1, increment: 0.5), [1.0, 1.5, 2, 2.5]),
        (.exponential(initial: 1, maximum: 5), [1.0, 2, 4, 5]),
        (.exponential(initial: 0.5, multiplier: 3, maximum: 100), [0.5, 1.5, 4.5, 13.5]),
    ])
    func waitStrategies(strategy: RetryProcedure<Procedure>.WaitStrategy, expected: [Double]) {
        var random = SeededGenerator(state: 1)
        let delays = (1...4).map { strategy.delay(afterAttempt: $0, using: &random) }
        #expect(delays == expected)
    }

    @Test func exponentialJitterShortensTheWaitByUpToItsFraction() {
        let strategy = RetryProcedure<Procedure>.WaitStrategy.exponential(
            initial: 1, maximum: 8, jitter: 0.5)
        var random = SeededGenerator(state: 7)
        let delays = (0..<200).map { _ in strategy.delay(afterAttempt: 4, using: &random) }
        #expect(delays.allSatisfy { $0 > 4 && $0 <= 8 })
        #expect(Set(delays).count > 100)
    }
}

import Foundation

/// Runs a procedure again, as a new instance, each time it fails, up to a number of attempts,
/// waiting between attempts.
///
/// An attempt that finishes with an error is a failure; one cancelled without an error (its
/// condition was false) is not, and is not retried. The retry finishes with the last attempt's
/// error, if it failed. Observers of the retry hear each new attempt as a will-add event.
///
/// When `T` takes an input or gives an output, so does the retry: its input is given to every
/// attempt, and its output is the current attempt's.
open class RetryProcedure<T: Procedure>: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: the retry's mutable state lives in `retry`, a `Locked` mutex.

    /// How long to wait before the next attempt.
    public enum WaitStrategy: Sendable, Equatable {
        /// Retry at once.
        case immediate
        /// Wait the same time before every retry.
        case constant(TimeInterval)
        /// Wait `initial` before the first retry, and `increment` more before each next one.
        case incrementing(initial: TimeInterval, increment: TimeInterval)
        /// Wait `initial`, then `multiplier` times longer before each next retry, never more than
        /// `maximum`, less a random fraction of up to `jitter` (0 to 1) so that many retries do
        /// not all fire at once.
        case exponential(
            initial: TimeInterval, multiplier: Double = 2, maximum: TimeInterval, jitter: Double = 0
        )

        /// The wait after failed attempt number `attempt` (from 1).
        public func delay<R: RandomNumberGenerator>(
            afterAttempt attempt: Int, using random: inout R
        ) -> TimeInterval {
            let retries = Double(max(0, attempt - 1))
            switch self {
            case .immediate:
                return 0
            case .constant(let interval):
                return interval
            case .incrementing(let initial, let increment):
                return initial + increment * retries
            case .exponential(let initial, let multiplier, let maximum, let jitter):
                let capped = min(maximum, initial * pow(multiplier, retries))
                let fraction = min(max(jitter, 0), 1)
                return capped * (1 - fraction * Double.random(in: 0..<1, using: &random))
            }
        }

        /// The wait after failed attempt number `attempt` (from 1).
        public func delay(afterAttempt attempt: Int) -> TimeInterval {
            var random = SystemRandomNumberGenerator()
            return delay(afterAttempt: attempt, using: &random)
        }
    }

    struct RetryState {
        var attempt = 1
        var current: T
        /// Gives an attempt the retry's input; set once an input is.
        var applyInput: ((T) -> Void)?
    }

    /// The most attempts made, the first included.
    public let maxAttempts: Int

    /// How long to wait between attempts.
    public let wait: WaitStrategy

    private let makeAttempt: @Sendable (Int) -> T
    let retry: Locked<RetryState>

    /// Creates a retry of at most `maxAttempts` attempts.
    ///
    /// - Parameters:
    ///   - maxAttempts: how many attempts to make at most, the first included.
    ///   - wait: how long to wait between attempts.
    ///   - makeAttempt: makes the procedure for attempt number `n` (from 1).
    public init(
        maxAttempts: Int, wait: WaitStrategy = .immediate,
        attempt makeAttempt: @escaping @Sendable (_ n: Int) -> T
    ) {
        precondition(maxAttempts >= 1, "A retry makes at least one attempt.")
        self.maxAttempts = maxAttempts
        self.wait = wait
        self.makeAttempt = makeAttempt
        let first = makeAttempt(1)
        retry = Locked(RetryState(current: first))
        super.init(operations: [first])
        name = "Retry<\(first.name ?? String(describing: T.self))>"
    }

    /// The number of the current attempt, from 1.
    public var attempt: Int {
        retry.withLock { $0.attempt }
    }

    /// The current attempt.
    public var current: T {
        retry.withLock { $0.current }
    }

    open override func child(_ child: Procedure, willFinishWithError error: (any Error)?) {
        let next = retry.withLock { retry -> (attempt: Int, applyInput: ((T) -> Void)?)? in
            guard child === retry.current, error != nil, retry.attempt < maxAttempts else {
                return nil
            }
            return (retry.attempt, retry.applyInput)
        }
        guard let next, !isCancelled else {
            return super.child(child, willFinishWithError: error)
        }
        let attempt = makeAttempt(next.attempt + 1)
        next.applyInput?(attempt)
        retry.withLock {
            $0.attempt = next.attempt + 1
            $0.current = attempt
        }
        let delay = wait.delay(afterAttempt: next.attempt)
        if delay > 0 {
            let pause = DelayProcedure(by: delay)
            attempt.addDependency(pause)
            addChildren([pause, attempt])
        } else {
            addChild(attempt)
        }
    }
}

extension RetryProcedure: InputProcedure where T: InputProcedure {
    /// The input every attempt is given.
    public var input: Pending<T.Input> {
        get { retry.withLock { $0.current.input } }
        set {
            let current = retry.withLock { retry in
                retry.applyInput = { $0.input = newValue }
                return retry.current
            }
            current.input = newValue
        }
    }
}

extension RetryProcedure: OutputProcedure where T: OutputProcedure {
    /// The current attempt's output.
    public var output: Pending<ProcedureResult<T.Output>> {
        get { current.output }
        set { current.output = newValue }
    }
}

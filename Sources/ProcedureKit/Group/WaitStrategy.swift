import Foundation

/// How long a ``RepeatProcedure`` (or a ``RetryProcedure``) waits before each procedure after
/// its first.
///
/// The wait after procedure number `n` is ``delay(afterAttempt:)`` of `n`; the strategy's
/// ``iterator`` gives those waits in turn, from the one after the first procedure. No wait is
/// negative.
public enum WaitStrategy: Sendable, Equatable {
    /// Go on at once.
    case immediate
    /// Wait the same time every time.
    case constant(TimeInterval)
    /// Wait a time picked at random between `minimum` and `maximum`, each time.
    case random(minimum: TimeInterval, maximum: TimeInterval)
    /// Wait `initial` the first time, and `increment` more each next time.
    case incrementing(initial: TimeInterval, increment: TimeInterval)
    /// Wait `period` times each Fibonacci number in turn (0, 1, 1, 2, 3, 5…), never more than
    /// `maximum`.
    case fibonacci(period: TimeInterval, maximum: TimeInterval)
    /// Wait `initial`, then `multiplier` times longer each next time, never more than
    /// `maximum`, less a random fraction of up to `jitter` (0 to 1) so that many repeats do
    /// not all fire at once.
    case exponential(
        initial: TimeInterval, multiplier: Double = 2, maximum: TimeInterval, jitter: Double = 0
    )

    /// The original's exponential wait: `period`, then `power` times longer each next time,
    /// never more than `maximum`, without jitter.
    ///
    /// - Parameters:
    ///   - power: what each wait is multiplied by to give the next.
    ///   - period: the first wait, in seconds.
    ///   - maximum: the longest wait, in seconds.
    /// - Returns: `.exponential(initial: period, multiplier: power, maximum: maximum)`.
    public static func exponential(
        power: Double, period: TimeInterval, maximum: TimeInterval
    ) -> WaitStrategy {
        .exponential(initial: period, multiplier: power, maximum: maximum)
    }

    /// The wait after procedure number `attempt` (from 1).
    ///
    /// - Parameters:
    ///   - attempt: the number of the procedure that finished, from 1.
    ///   - random: the source of the random waits and of jitter.
    /// - Returns: the seconds to wait; never negative.
    public func delay<R: RandomNumberGenerator>(
        afterAttempt attempt: Int, using random: inout R
    ) -> TimeInterval {
        let retries = max(0, attempt - 1)
        switch self {
        case .immediate:
            return 0
        case .constant(let interval):
            return max(0, interval)
        case .random(let minimum, let maximum):
            precondition(
                minimum <= maximum,
                "A random wait's minimum (\(minimum)) is more than its maximum (\(maximum)).")
            return max(0, Double.random(in: minimum...maximum, using: &random))
        case .incrementing(let initial, let increment):
            return max(0, initial + increment * Double(retries))
        case .fibonacci(let period, let maximum):
            return max(0, min(maximum, period * Double(Self.fibonacci(retries))))
        case .exponential(let initial, let multiplier, let maximum, let jitter):
            let capped = min(maximum, initial * pow(multiplier, Double(retries)))
            let fraction = min(max(jitter, 0), 1)
            return max(0, capped * (1 - fraction * Double.random(in: 0..<1, using: &random)))
        }
    }

    /// The wait after procedure number `attempt` (from 1), with the system's random numbers.
    ///
    /// - Parameter attempt: the number of the procedure that finished, from 1.
    /// - Returns: the seconds to wait; never negative.
    public func delay(afterAttempt attempt: Int) -> TimeInterval {
        var random = SystemRandomNumberGenerator()
        return delay(afterAttempt: attempt, using: &random)
    }

    /// The waits in turn, endlessly: after the first procedure, after the second, and so on.
    public var iterator: AnyIterator<TimeInterval> {
        AnyIterator(CountingIterator { [self] count in delay(afterAttempt: count + 1) })
    }

    /// Fibonacci number `index` (from 0), `Int.max` past the largest that fits; at most a
    /// hundred steps, so that a long repeat's waits cost the same each time.
    private static func fibonacci(_ index: Int) -> Int {
        var numbers = FibonacciIterator()
        for _ in 0..<min(index, 100) { _ = numbers.next() }
        return numbers.next() ?? .max
    }
}

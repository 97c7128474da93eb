import Foundation

/// Endless iterators of time intervals, in seconds: the waits of a ``WaitStrategy``, one per
/// procedure a repeat makes after its first.
///
/// Each is the ``WaitStrategy/iterator`` of the strategy of the same name, so their values
/// are never negative.
public enum IntervalIterator {
    /// Zero, for ever.
    public static var immediate: AnyIterator<TimeInterval> {
        WaitStrategy.immediate.iterator
    }

    /// The same interval every time.
    ///
    /// - Parameter constant: the interval, in seconds.
    public static func constant(_ constant: TimeInterval = 1.0) -> AnyIterator<TimeInterval> {
        WaitStrategy.constant(constant).iterator
    }

    /// An interval picked at random between a minimum and a maximum, each time.
    ///
    /// - Parameters:
    ///   - minimum: the shortest interval, in seconds.
    ///   - maximum: the longest interval, in seconds; at least `minimum`.
    public static func random(
        withMinimum minimum: TimeInterval = 0.0, andMaximum maximum: TimeInterval = 10.0
    ) -> AnyIterator<TimeInterval> {
        WaitStrategy.random(minimum: minimum, maximum: maximum).iterator
    }

    /// `initial`, then `increment` more each time.
    ///
    /// - Parameters:
    ///   - initial: the first interval, in seconds.
    ///   - increment: what each next interval adds, in seconds.
    public static func incrementing(
        from initial: TimeInterval = 0.0, by increment: TimeInterval = 1.0
    ) -> AnyIterator<TimeInterval> {
        WaitStrategy.incrementing(initial: initial, increment: increment).iterator
    }

    /// `period` times each Fibonacci number in turn (0, 1, 1, 2, 3, 5…), at most `maximum`.
    ///
    /// - Parameters:
    ///   - period: the interval one Fibonacci unit stands for, in seconds.
    ///   - maximum: the longest interval, in seconds.
    public static func fibonacci(
        withPeriod period: TimeInterval = 1.0,
        andMaximum maximum: TimeInterval = TimeInterval(Int.max)
    ) -> AnyIterator<TimeInterval> {
        WaitStrategy.fibonacci(period: period, maximum: maximum).iterator
    }

    /// `period`, then `power` times longer each time, at most `maximum`.
    ///
    /// - Parameters:
    ///   - power: what each interval is multiplied by to give the next.
    ///   - period: the first interval, in seconds.
    ///   - maximum: the longest interval, in seconds.
    public static func exponential(
        power: Double = 2.0, withPeriod period: TimeInterval = 1.0,
        andMaximum maximum: TimeInterval = TimeInterval(Int.max)
    ) -> AnyIterator<TimeInterval> {
        WaitStrategy.exponential(power: power, period: period, maximum: maximum).iterator
    }
}

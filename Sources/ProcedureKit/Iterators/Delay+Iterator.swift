import Foundation

extension Delay {
    /// The delays of the intervals `iterator` gives, each `.by` one.
    ///
    /// - Parameter iterator: the intervals, in seconds.
    /// - Returns: an iterator of delays, ending when `iterator` does.
    public static func iterator(_ iterator: AnyIterator<TimeInterval>) -> AnyIterator<Delay> {
        AnyIterator(MapIterator(iterator) { Delay.by($0) })
    }

    /// Endless iterators of delays: the intervals of ``IntervalIterator``, each `.by` one.
    public enum Iterator {
        /// No delay, for ever.
        public static var immediate: AnyIterator<Delay> {
            Delay.iterator(IntervalIterator.immediate)
        }

        /// The same delay every time.
        ///
        /// - Parameter constant: the delay, in seconds.
        public static func constant(_ constant: TimeInterval = 1.0) -> AnyIterator<Delay> {
            Delay.iterator(IntervalIterator.constant(constant))
        }

        /// A delay picked at random between a minimum and a maximum, each time.
        ///
        /// - Parameters:
        ///   - minimum: the shortest delay, in seconds.
        ///   - maximum: the longest delay, in seconds; at least `minimum`.
        public static func random(
            withMinimum minimum: TimeInterval = 0.0, andMaximum maximum: TimeInterval = 10.0
        ) -> AnyIterator<Delay> {
            Delay.iterator(IntervalIterator.random(withMinimum: minimum, andMaximum: maximum))
        }

        /// `initial`, then `increment` more each time.
        ///
        /// - Parameters:
        ///   - initial: the first delay, in seconds.
        ///   - increment: what each next delay adds, in seconds.
        public static func incrementing(
            from initial: TimeInterval = 0.0, by increment: TimeInterval = 1.0
        ) -> AnyIterator<Delay> {
            Delay.iterator(IntervalIterator.incrementing(from: initial, by: increment))
        }

        /// `period` times each Fibonacci number in turn (0, 1, 1, 2, 3, 5…), at most `maximum`.
        ///
        /// - Parameters:
        ///   - period: the delay one Fibonacci unit stands for, in seconds.
        ///   - maximum: the longest delay, in seconds.
        public static func fibonacci(
            withPeriod period: TimeInterval = 1.0,
            andMaximum maximum: TimeInterval = TimeInterval(Int.max)
        ) -> AnyIterator<Delay> {
            Delay.iterator(IntervalIterator.fibonacci(withPeriod: period, andMaximum: maximum))
        }

        /// `period`, then `power` times longer each time, at most `maximum`.
        ///
        /// - Parameters:
        ///   - power: what each delay is multiplied by to give the next.
        ///   - period: the first delay, in seconds.
        ///   - maximum: the longest delay, in seconds.
        public static func exponential(
            power: Double = 2.0, withPeriod period: TimeInterval = 1.0,
            andMaximum maximum: TimeInterval = TimeInterval(Int.max)
        ) -> AnyIterator<Delay> {
            Delay.iterator(
                IntervalIterator.exponential(power: power, withPeriod: period, andMaximum: maximum))
        }
    }
}

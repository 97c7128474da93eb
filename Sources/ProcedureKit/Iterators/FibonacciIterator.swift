/// The Fibonacci numbers, from 0: 0, 1, 1, 2, 3, 5, 8…
///
/// Past the largest `Int` Fibonacci number it gives `Int.max` for ever, rather than
/// overflowing: waits made from it stay capped however long a repeat runs.
public struct FibonacciIterator: IteratorProtocol {
    private var current = 0
    private var following = 1

    /// Creates an iterator from 0.
    public init() {}

    /// The next Fibonacci number, or `Int.max` once they no longer fit an `Int`.
    public mutating func next() -> Int? {
        let result = current
        let (sum, overflow) = following.addingReportingOverflow(current)
        current = following
        following = overflow ? .max : sum
        return result
    }
}

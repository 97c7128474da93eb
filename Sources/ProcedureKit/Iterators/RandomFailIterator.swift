/// An iterator that gives the elements of another, but ends at random: each time, with a given
/// probability, it gives `nil` instead.
public struct RandomFailIterator<Element>: IteratorProtocol {
    private var iterator: AnyIterator<Element>

    /// The chance, from 0 to 1, that each call to `next()` gives `nil`.
    public let probability: Double

    /// Creates an iterator of the elements of `iterator` that fails with `probability`.
    ///
    /// - Parameters:
    ///   - iterator: where the elements come from.
    ///   - probability: the chance, from 0 to 1, that each element is `nil` instead.
    public init<Base: IteratorProtocol>(_ iterator: Base, probability: Double = 0.1)
    where Base.Element == Element {
        self.iterator = AnyIterator(iterator)
        self.probability = probability
    }

    /// The next element, or `nil` by chance or once the elements run out.
    public mutating func next() -> Element? {
        guard Double.random(in: 0..<1) >= probability else { return nil }
        return iterator.next()
    }
}

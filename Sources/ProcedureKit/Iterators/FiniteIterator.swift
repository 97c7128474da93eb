/// An iterator that gives at most a number of the elements of another.
public struct FiniteIterator<Element>: IteratorProtocol {
    private var iterator: CountingIterator<Element>

    /// Creates an iterator of at most `limit` elements of `iterator`.
    ///
    /// - Parameters:
    ///   - iterator: where the elements come from.
    ///   - limit: how many to give at most.
    public init<Base: IteratorProtocol>(_ iterator: Base, limit: Int = 10)
    where Base.Element == Element {
        var base = iterator
        self.iterator = CountingIterator { count in
            count < limit ? base.next() : nil
        }
    }

    /// The next element, or `nil` once the limit is reached or the elements run out.
    public mutating func next() -> Element? {
        iterator.next()
    }
}

/// An iterator of pairs: each element of a primary iterator, with the next of a secondary one
/// (`nil` once the secondary runs out). It ends when the primary does.
public struct PairIterator<T, V>: IteratorProtocol {
    private var primary: AnyIterator<T>
    private var secondary: AnyIterator<V>

    /// Creates an iterator pairing the elements of `primary` with those of `secondary`.
    ///
    /// - Parameters:
    ///   - primary: gives the first of each pair, and ends the iteration.
    ///   - secondary: gives the second of each pair, `nil` once it runs out.
    public init<Primary: IteratorProtocol, Secondary: IteratorProtocol>(
        primary: Primary, secondary: Secondary
    ) where Primary.Element == T, Secondary.Element == V {
        self.primary = AnyIterator(primary)
        self.secondary = AnyIterator(secondary)
    }

    /// The next element of the primary iterator and the next of the secondary one.
    public mutating func next() -> (T, V?)? {
        primary.next().map { ($0, secondary.next()) }
    }
}

/// An iterator of the elements of another, transformed.
public struct MapIterator<T, V>: IteratorProtocol {
    private let transform: (T) -> V
    private var iterator: AnyIterator<T>

    /// Creates an iterator of `transform` applied to each element of `iterator`.
    ///
    /// - Parameters:
    ///   - iterator: where the elements come from.
    ///   - transform: makes each element given from one taken.
    public init<Base: IteratorProtocol>(_ iterator: Base, transform: @escaping (T) -> V)
    where Base.Element == T {
        self.iterator = AnyIterator(iterator)
        self.transform = transform
    }

    /// The next element, transformed; `nil` once the elements run out.
    public mutating func next() -> V? {
        iterator.next().map(transform)
    }
}

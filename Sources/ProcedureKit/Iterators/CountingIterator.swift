/// An iterator whose elements a block makes from their index, counting from zero.
///
/// Like the other iterators here, it is meant for one thread at a time, as any iterator is, so
/// its block need not be `@Sendable` and may capture other iterators.
public struct CountingIterator<Element>: IteratorProtocol {
    private let body: (Int) -> Element?

    /// How many elements have been asked for so far.
    public private(set) var count = 0

    /// Creates an iterator of the elements `body` makes.
    ///
    /// - Parameter body: makes the element at an index (from 0), or returns `nil` to end.
    public init(_ body: @escaping (Int) -> Element?) {
        self.body = body
    }

    /// The element at index ``count``.
    public mutating func next() -> Element? {
        defer { count += 1 }
        return body(count)
    }
}

import Foundation

/// A procedure that says whether the repeat making it should go on after it: a repeat of a
/// `Repeatable` type made from a body stops when the last procedure to finish says not to.
public protocol Repeatable {
    /// Whether the repeat should make another procedure after this one.
    ///
    /// - Parameter count: how many procedures the repeat has made so far, this one included.
    /// - Returns: true to make another.
    func shouldRepeat(count: Int) -> Bool
}

extension RepeatProcedure where T: Repeatable {
    /// Creates a repeat of the procedures `body` makes, for as long as the last one finished
    /// says it should repeat: `RepeatProcedure { MyRepeatableProcedure() }`.
    ///
    /// - Parameters:
    ///   - max: how many procedures to make at most, the first included; `nil` for no limit.
    ///   - wait: how long to wait between procedures.
    ///   - body: makes the next procedure, or returns `nil` to stop; it must make the first.
    public convenience init(
        max: Int? = nil, wait: WaitStrategy = .immediate,
        body: @escaping @Sendable () -> T?
    ) {
        self.init(max: max, wait: wait, iterator: RepeatableIterator(AnyIterator(body)))
    }
}

/// The elements of another iterator, for as long as the last one given says to repeat.
struct RepeatableIterator<Element: Repeatable>: IteratorProtocol {
    private var iterator: AnyIterator<Element>
    private var count = 0
    private var latest: Element?

    init<Base: IteratorProtocol>(_ base: Base) where Base.Element == Element {
        iterator = AnyIterator(base)
    }

    mutating func next() -> Element? {
        if let latest, !latest.shouldRepeat(count: count) { return nil }
        latest = iterator.next()
        count += 1
        return latest
    }
}

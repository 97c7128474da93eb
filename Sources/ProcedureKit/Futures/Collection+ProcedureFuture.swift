import Synchronization

extension Collection where Element == ProcedureFuture {
    /// A future signalled once every future in the collection has been (at once if the
    /// collection is empty).
    ///
    /// ```swift
    /// [warmCaches(), openDatabase()].future.then(on: DispatchQueue.main) { print("ready") }
    /// ```
    public var future: ProcedureFuture {
        guard !isEmpty else { return .signalled }
        let all = FutureCompletion<Void>()
        let remaining = Countdown(count)
        for future in self {
            future.completion.whenSettled {
                if remaining.countDown() { all.settle(()) }
            }
        }
        return ProcedureFuture(all)
    }
}

/// Counts down from a number, from any thread.
private final class Countdown: Sendable {
    private let remaining: Atomic<Int>

    init(_ count: Int) {
        remaining = Atomic(count)
    }

    /// Counts one down; true for the call that reaches zero.
    func countDown() -> Bool {
        remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
    }
}

/// What a promise and its future share: pending, with the callbacks waiting for it, or settled,
/// with its value.
///
/// Callbacks run outside the lock: the one that settles it runs those waiting, on its own
/// thread; one added once it is settled runs at once, on the thread that adds it.
final class FutureCompletion<Value: Sendable>: Sendable {
    private enum State {
        case pending([@Sendable (Value) -> Void])
        case settled(Value)
    }

    private let state: Locked<State>

    /// A completion still pending.
    init() {
        state = Locked(.pending([]))
    }

    /// A completion settled with `value`.
    init(settledWith value: Value) {
        state = Locked(.settled(value))
    }

    /// Whether it has been settled.
    var isSettled: Bool {
        state.withLock { state in
            if case .settled = state { return true }
            return false
        }
    }

    /// Settles it with `value` and runs the callbacks waiting; only the first call counts.
    ///
    /// - Returns: whether this call settled it.
    @discardableResult
    func settle(_ value: Value) -> Bool {
        let waiting = state.withLock { state -> [@Sendable (Value) -> Void]? in
            guard case .pending(let waiting) = state else { return nil }
            state = .settled(value)
            return waiting
        }
        guard let waiting else { return false }
        for callback in waiting { callback(value) }
        return true
    }

    /// Calls `callback` with the value once it is settled: at once if it is.
    func whenSettled(_ callback: @escaping @Sendable (Value) -> Void) {
        let settled = state.withLock { state -> Value? in
            switch state {
            case .pending(var waiting):
                // Emptied first, so that appending does not copy the array.
                state = .pending([])
                waiting.append(callback)
                state = .pending(waiting)
                return nil
            case .settled(let value):
                return value
            }
        }
        if let settled { callback(settled) }
    }
}

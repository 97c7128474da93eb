import ProcedureKit

/// Set once `--fail-fast` stops a run: why it stopped.
final class FailFastStop: Sendable {
    private let cause = Locked<RunCancellation?>(nil)

    /// Records the stop; false if the run had already stopped.
    func stop(_ cancellation: RunCancellation) -> Bool {
        cause.withLock { cause in
            guard cause == nil else { return false }
            cause = cancellation
            return true
        }
    }

    var cancellation: RunCancellation? { cause.withLock { $0 } }
}

import ProcedureKit

/// Set once a run stops early — `--fail-fast` after a failure, or an interrupt in a workflow
/// with `always` steps — while its clean-up steps still run: why it stopped.
final class RunStop: Sendable {
    private let cause = Locked<(any Error & Sendable)?>(nil)

    /// Records the stop; false if the run had already stopped.
    func stop(_ cancellation: any Error & Sendable) -> Bool {
        cause.withLock { cause in
            guard cause == nil else { return false }
            cause = cancellation
            return true
        }
    }

    /// Why the run stopped, once it has.
    var cancellation: (any Error & Sendable)? { cause.withLock { $0 } }
}

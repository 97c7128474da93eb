import Foundation
import ProcedureKit

/// Tells when a step with a mutex became ready but for its mutex: its conditions start being
/// evaluated when its dependencies have finished (this condition records that moment), and a
/// `when` condition's end moves the moment on. What lies between it and the step's start is the
/// mutex wait.
final class ReadinessClock: Condition, @unchecked Sendable {
    // @unchecked Sendable: the one mutable value lives in `since`, a `Locked` mutex.
    private let since = Locked<Date?>(nil)

    override init() {
        super.init()
        name = "readiness"
    }

    /// When the step became ready but for its mutex; `nil` before its conditions ran.
    var readySince: Date? { since.withLock { $0 } }

    /// A `when` condition finished evaluating at `date`.
    func conditionEvaluated(at date: Date) {
        since.withLock { since in since = max(since ?? date, date) }
    }

    override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        let now = Date()
        since.withLock { since in since = max(since ?? now, now) }
        completion(.success(true))
    }
}

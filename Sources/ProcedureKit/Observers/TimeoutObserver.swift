import Dispatch
import Foundation

/// Cancels a procedure with a `timedOut` error if it has not finished a given time after it
/// starts executing.
public struct TimeoutObserver: ProcedureObserver {
    /// The time limit, in seconds, counted from when the procedure starts executing.
    public let interval: TimeInterval

    /// Limits the procedure to `interval` seconds of execution.
    public init(by interval: TimeInterval) {
        self.interval = interval
    }

    public func will(execute procedure: Procedure) {
        let interval = interval
        DispatchQueue.global().asyncAfter(deadline: .now() + interval) { [weak procedure] in
            guard let procedure, !procedure.isFinished else { return }
            procedure.cancel(with: ProcedureKitError.timedOut(after: interval))
        }
    }
}

import Dispatch
import Foundation

/// Cancels a procedure with a `timedOut` error if it has not finished by a deadline: a time
/// after it starts executing, or a date.
///
/// A limit that has passed by the time the procedure starts executing, or an interval that is
/// not positive, sets no limit at all, as in ProcedureKit.
public struct TimeoutObserver: ProcedureObserver {
    private enum Limit: Sendable {
        case interval(TimeInterval)
        case date(Date)
    }

    private let limit: Limit

    /// The time limit, in seconds, counted from when the procedure starts executing: for a
    /// limit set by date, the time left until that date.
    public var interval: TimeInterval {
        switch limit {
        case .interval(let interval): return interval
        case .date(let date): return date.timeIntervalSinceNow
        }
    }

    /// Limits the procedure to `interval` seconds of execution; an interval that is not
    /// positive sets no limit.
    public init(by interval: TimeInterval) {
        limit = .interval(interval)
    }

    /// Limits the procedure to finishing by `date`; a date that has passed when the procedure
    /// starts executing sets no limit.
    public init(until date: Date) {
        limit = .date(date)
    }

    /// Starts the timer as the procedure starts executing.
    public func will(execute procedure: Procedure) {
        let interval = interval
        guard interval > 0 else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + interval) { [weak procedure] in
            guard let procedure, !procedure.isFinished else { return }
            procedure.cancel(with: ProcedureKitError.timedOut(after: interval))
        }
    }
}

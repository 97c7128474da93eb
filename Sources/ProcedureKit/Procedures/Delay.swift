import Foundation

/// How long a ``DelayProcedure`` waits: for a time interval, or until a date.
///
/// Delays compare as the original's do: two intervals by their length, two dates by which is
/// earlier; an interval and a date are never less than one another.
public enum Delay: Sendable, Comparable, CustomStringConvertible {
    /// Wait this many seconds from when the procedure executes.
    case by(TimeInterval)
    /// Wait until this date.
    case until(Date)

    /// Whether `lhs` is shorter (an interval) or earlier (a date) than `rhs`; false for an
    /// interval against a date.
    public static func < (lhs: Delay, rhs: Delay) -> Bool {
        switch (lhs, rhs) {
        case (.by(let lhs), .by(let rhs)): return lhs < rhs
        case (.until(let lhs), .until(let rhs)): return lhs < rhs
        default: return false
        }
    }

    /// "for 1.0 seconds" or "until" the date.
    public var description: String {
        switch self {
        case .by(let interval): return "for \(interval) seconds"
        case .until(let date): return "until \(date)"
        }
    }

    /// The seconds left from now until the delay is over; zero or less if it is over.
    public var interval: TimeInterval {
        switch self {
        case .by(let interval): return interval
        case .until(let date): return date.timeIntervalSinceNow
        }
    }
}

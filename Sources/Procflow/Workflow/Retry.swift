/// How often to try a failing step, and how long to wait in between.
public struct Retry: Sendable {
    /// How the wait grows from one retry to the next.
    public enum Backoff: String, Sendable, CaseIterable {
        case constant, linear, exponential
    }

    /// Attempts in all, the first included.
    public var attempts: Int
    /// How the wait grows.
    public var backoff: Backoff
    /// Seconds before the first retry.
    public var delay: Double
    /// The longest wait, in seconds.
    public var maxDelay: Double?
    /// A fraction (0 to 1) by which each wait is shortened at random.
    public var jitter: Double
}

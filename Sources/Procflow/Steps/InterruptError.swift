/// The error a step is cancelled with when procflow forwards a signal to it: its command gets
/// that signal rather than SIGTERM.
public struct InterruptError: Error, CustomStringConvertible, Sendable {
    /// The signal procflow received, and forwards.
    public let signal: Int32

    /// The error for a cancellation caused by `signal`.
    public init(signal: Int32) {
        self.signal = signal
    }

    /// "interrupted by SIGINT (2)".
    public var description: String { "interrupted by \(SignalName.describe(signal))" }
}

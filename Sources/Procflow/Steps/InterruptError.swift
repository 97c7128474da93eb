/// The error a step is cancelled with when procflow forwards a signal to it: its command gets
/// that signal rather than SIGTERM.
public struct InterruptError: Error, CustomStringConvertible, Sendable {
    public let signal: Int32

    public init(signal: Int32) {
        self.signal = signal
    }

    public var description: String { "interrupted by \(SignalName.describe(signal))" }
}

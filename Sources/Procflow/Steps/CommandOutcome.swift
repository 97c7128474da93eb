/// How a command ended, as an executor reports it: data, not an error.
struct CommandOutcome: Sendable {
    /// How a command ended.
    enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signaled(Int32)
        /// Its exit status could not be read, for the reason given. Never a success.
        case unknown(String)
    }

    var termination: Termination
    /// Stdout, if it was captured and stayed under the limit.
    var captured: [UInt8]
    var captureExceeded: Bool
    /// The last lines written to stderr.
    var stderrTail: [String]
}

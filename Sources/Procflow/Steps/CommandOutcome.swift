/// How a command ended, as an executor reports it: data, not an error.
struct CommandOutcome: Sendable {
    /// How a command ended.
    enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signaled(Int32)
        /// Its exit status could not be read, for the reason given. Never a success.
        case unknown(String)
        /// It never started, for the reason given (a job the scheduler refused).
        case notStarted(String)
        /// Whatever ran it ended it, for the reason given (a job past its time limit, out of
        /// memory, on a node that failed). Never a success.
        case ended(String)
    }

    var termination: Termination
    /// Stdout, if it was captured and stayed under the limit.
    var captured: [UInt8]
    var captureExceeded: Bool
    /// The last lines written to stderr.
    var stderrTail: [String]
}

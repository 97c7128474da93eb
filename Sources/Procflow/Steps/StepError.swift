/// Why a step failed, in a sentence that names what went wrong.
public struct StepError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What kind of failure it is.
    public enum Code: Equatable, Sendable {
        /// The command could not be started.
        case spawnFailed
        /// The command exited with a non-zero status.
        case exited(Int32)
        /// The command was killed by a signal.
        case signaled(Int32)
        /// How the command ended could not be found out: never taken for a success.
        case exitStatusUnknown
        /// The scheduler running the command as a job ended it (time limit, memory, a failed
        /// node, a cancel from outside).
        case jobEnded
        /// The command wrote more than the capture limit to a captured stdout.
        case outputLimitExceeded
        /// A JSON output was not valid JSON.
        case invalidJSON
        /// The HTTP request could not be made (connection, DNS, TLS, timeout).
        case httpTransport
        /// The server answered with a status the step does not accept.
        case httpStatus(Int)
        /// A file operation failed.
        case file
        /// A wired value did not have the shape the step needs.
        case input
        /// A condition's command ran past the step's timeout.
        case timedOut
        /// A service did not become ready: it timed out, or exited first.
        case notReady
        /// A service the step needs ended while the step ran or waited to.
        case serviceEnded
    }

    /// What kind of failure it is.
    public let code: Code
    /// The sentence, without the step's name.
    public let message: String
    /// The last lines the command wrote to stderr, for failure reports.
    public let stderrTail: [String]

    /// A failure of kind `code`, explained by `message`, with the command's last lines of stderr.
    public init(_ code: Code, _ message: String, stderrTail: [String] = []) {
        self.code = code
        self.message = message
        self.stderrTail = stderrTail
    }

    /// The message.
    public var description: String { message }

    /// Errors are equal when their codes and messages are: the stderr tail is a report's detail.
    public static func == (lhs: StepError, rhs: StepError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }
}

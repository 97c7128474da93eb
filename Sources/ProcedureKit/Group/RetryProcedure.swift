import Foundation

/// Runs a procedure again, as a new instance, each time it fails, up to a number of attempts,
/// waiting between attempts.
///
/// An attempt that finishes with an error is a failure; one cancelled without an error (its
/// condition was false) is not, and is not retried. The retry finishes with the last attempt's
/// error, if it failed. Observers of the retry hear each new attempt, the first excepted, as a
/// will-add event: each such event is a retry.
///
/// When `T` takes an input or gives an output, so does the retry: its input is given to every
/// attempt, and its output is the current attempt's.
open class RetryProcedure<T: Procedure>: RepeatProcedure<T>, @unchecked Sendable {
    // @unchecked Sendable: adds no mutable state to the repeat's.

    /// The most attempts made, the first included.
    public let maxAttempts: Int

    /// Creates a retry of at most `maxAttempts` attempts.
    ///
    /// - Parameters:
    ///   - maxAttempts: how many attempts to make at most, the first included.
    ///   - wait: how long to wait between attempts.
    ///   - makeAttempt: makes the procedure for attempt number `n` (from 1).
    public init(
        maxAttempts: Int, wait: WaitStrategy = .immediate,
        attempt makeAttempt: @escaping @Sendable (_ n: Int) -> T
    ) {
        precondition(maxAttempts >= 1, "A retry makes at least one attempt.")
        self.maxAttempts = maxAttempts
        super.init(max: maxAttempts, wait: wait) { makeAttempt($0) }
    }

    override class var kind: String { "Retry" }

    /// The number of the current attempt, from 1.
    public var attempt: Int { count }

    override func repeats(afterError error: (any Error)?) -> Bool { error != nil }

    /// A failed attempt that is retried does not fail the retry.
    override var recordsErrorsOfRepeatedProcedures: Bool { false }
}

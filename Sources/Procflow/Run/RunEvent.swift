import Foundation

/// Something that happened during a run, for the reporters.
public struct RunEvent: Sendable {
    /// What happened.
    public enum Kind: Sendable {
        case workflowStarted(name: String, steps: [String])
        /// Attempt `attempt` of `of` starts running (a group or branch: it starts). A step
        /// with retries starts once per attempt.
        case stepStarted(attempt: Int, of: Int)
        case stepOutput(ShellProcedure.Stream, [Substring])
        /// The step waited for something; the wait ended now, after `duration` seconds.
        case stepWaited(StepWait, duration: TimeInterval)
        case stepSucceeded(duration: TimeInterval)
        /// An incremental step was up to date and did not run; `note` says what was put back
        /// from the store, if anything.
        case stepCached(note: String?)
        /// Why an incremental step runs (with `--explain`).
        case stepExplained(reason: String)
        case stepFailed(
            reason: String, stderrTail: [String], duration: TimeInterval, tolerated: Bool)
        case stepSkipped(reason: String)
        /// An attempt failed after `duration` seconds, for `reason`; attempt `attempt` of `of`
        /// follows.
        case stepRetried(attempt: Int, of: Int, reason: String, duration: TimeInterval)
        case stepCancelled(reason: String, duration: TimeInterval?)
        case workflowFinished(RunSummary)
    }

    /// When it happened.
    public var time: Date
    /// The step's id, for step events.
    public var step: String?
    /// The ids of the groups and branches the step is in, outermost first.
    public var path: [String]
    /// What happened.
    public var kind: Kind

    /// An event, by default a workflow event of now.
    public init(time: Date = Date(), step: String? = nil, path: [String] = [], kind: Kind) {
        self.time = time
        self.step = step
        self.path = path
        self.kind = kind
    }
}

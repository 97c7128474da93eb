import Foundation

/// Something that happened during a run, for the reporters.
public struct RunEvent: Sendable {
    /// What happened.
    public enum Kind: Sendable {
        case workflowStarted(name: String, steps: [String])
        case stepStarted
        case stepOutput(ShellProcedure.Stream, [Substring])
        case stepSucceeded(duration: TimeInterval)
        /// An incremental step was up to date and did not run; `note` says what was put back
        /// from the store, if anything.
        case stepCached(note: String?)
        /// Why an incremental step runs (with `--explain`).
        case stepExplained(reason: String)
        case stepFailed(
            reason: String, stderrTail: [String], duration: TimeInterval, tolerated: Bool)
        case stepSkipped(reason: String)
        case stepRetried(attempt: Int, of: Int, reason: String)
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

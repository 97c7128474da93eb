import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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
        /// The step succeeded after `duration` seconds; a service (`ready`) is ready then, and
        /// keeps running.
        case stepSucceeded(duration: TimeInterval, ready: Bool = false)
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
        /// procflow received `signal`: it waits up to `gracePeriod` seconds for `commands`
        /// commands to exit and `alwaysSteps` clean-up steps to run, unless a second signal
        /// kills them.
        case workflowInterrupted(
            signal: Int32, commands: Int, alwaysSteps: Int, gracePeriod: TimeInterval)
        case workflowFinished(RunSummary)
    }

    /// When it happened.
    public var time: Date
    /// The step's id, for step events.
    public var step: String?
    /// What people call the step, when not its id: a `forEach` instance named by its item
    /// (`cc[src/lapi.c]`).
    public var name: String? = nil
    /// The ids of the groups and branches the step is in, outermost first.
    public var path: [String]
    /// What happened.
    public var kind: Kind

    /// The step's name, else its id: what reports show.
    public var shownStep: String? { name ?? step }

    /// An event, by default a workflow event of now.
    public init(time: Date = Date(), step: String? = nil, path: [String] = [], kind: Kind) {
        self.time = time
        self.step = step
        self.path = path
        self.kind = kind
    }
}

extension RunEvent.Kind {
    /// What a reporter says of an interrupt: "procflow: interrupted by SIGINT (2); waiting up
    /// to 5 s for 3 commands to exit; Ctrl-C again to kill them"; `nil` for other events.
    var interruptionNotice: String? {
        guard case .workflowInterrupted(let signal, let commands, let alwaysSteps, let grace) = self
        else { return nil }
        var waits: [String] = []
        if commands > 0 { waits.append("\(plural(commands, "command")) to exit") }
        if alwaysSteps > 0 { waits.append("\(plural(alwaysSteps, "always step")) to run") }
        let again = signal == SIGINT ? "Ctrl-C again" : "\(SignalName.names[signal] ?? "it") again"
        return
            "procflow: interrupted by \(SignalName.describe(signal)); waiting up to \(formatDuration(alwaysSteps > 0 ? 2 * grace : grace)) for \(waits.joined(separator: " and ")); \(again) to kill them"
    }
}

import ProcedureKit

/// Where a step stands, as the reporters show it.
public enum StepStatus: String, Sendable, CaseIterable {
    case pending
    case running
    case succeeded
    /// Up to date: it did not run, and its last run's output stands.
    case cached
    /// Failed, but marked `continueOnError`.
    case warning
    case failed
    case skipped
    case cancelled

    /// Whether the step is over.
    public var isDone: Bool { self != .pending && self != .running }
}

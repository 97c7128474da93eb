import Foundation

/// How a run ended, step by step.
public struct RunSummary: Sendable {
    /// One step's line in the summary.
    public struct Row: Sendable {
        /// The step's id.
        public var id: String
        /// The ids of the groups and branches it is in, outermost first.
        public var path: [String]
        /// How it ended.
        public var status: StepStatus
        /// How long it ran, if it started.
        public var duration: TimeInterval?
        /// Why it failed or was skipped.
        public var reason: String?
    }

    /// How the whole run ended.
    public enum Result: Sendable, Equatable {
        case succeeded
        case failed
        case interrupted(Int32)
    }

    /// The workflow's name.
    public var name: String
    /// Every step, in file order, depth first.
    public var rows: [Row]
    /// How the run ended.
    public var result: Result
    /// How long the run took, in seconds.
    public var duration: TimeInterval

    /// How many steps ended with `status`.
    public func count(_ status: StepStatus) -> Int {
        rows.filter { $0.status == status }.count
    }
}

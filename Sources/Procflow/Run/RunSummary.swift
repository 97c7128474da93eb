import Foundation

/// How a run ended, step by step.
public struct RunSummary: Sendable {
    public struct Row: Sendable {
        public var id: String
        public var path: [String]
        public var status: StepStatus
        public var duration: TimeInterval?
        /// Why it failed or was skipped.
        public var reason: String?
    }

    public enum Result: Sendable, Equatable {
        case succeeded
        case failed
        case interrupted(Int32)
    }

    public var name: String
    public var rows: [Row]
    public var result: Result
    public var duration: TimeInterval

    /// How many steps ended with `status`.
    public func count(_ status: StepStatus) -> Int {
        rows.filter { $0.status == status }.count
    }
}

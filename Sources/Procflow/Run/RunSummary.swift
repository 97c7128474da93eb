import Foundation

/// How a run ended, step by step.
public struct RunSummary: Sendable {
    /// One step's line in the summary.
    public struct Row: Sendable {
        /// The step's id.
        public var id: String
        /// The ids of the groups and branches it is in, outermost first.
        public var path: [String]
        /// How long it ran, if it started.
        public var duration: TimeInterval?
        /// How it ended (after ``duration``, whose spare byte it takes).
        public var status: StepStatus
        /// Why it failed or was skipped.
        public var reason: String? {
            get { details?.reason }
            set { details = StepDetails.of(reason: newValue, value: value, name: name) }
        }
        /// The value it gave other steps, if it gave one: its start, and its size.
        public var value: ValuePreview? {
            get { details?.value }
            set { details = StepDetails.of(reason: reason, value: newValue, name: name) }
        }
        /// What people call it, when not its id: a `forEach` instance named by its item.
        public var name: String? {
            get { details?.name }
            set { details = StepDetails.of(reason: reason, value: value, name: newValue) }
        }
        /// ``reason``, ``value`` and ``name``, which most rows of a large run lack, in a box
        /// replaced on change, and shared with the step's standing in the run it was made from:
        /// a row takes 48 bytes, not 120 (the summary of 100,000 steps is made at the run's end,
        /// when its memory is at its highest).
        var details: StepDetails?

        /// The row of the step `id`.
        public init(
            id: String, path: [String], status: StepStatus, duration: TimeInterval?,
            reason: String?, value: ValuePreview? = nil, name: String? = nil
        ) {
            self.id = id
            self.path = path
            self.status = status
            self.duration = duration
            details = StepDetails.of(reason: reason, value: value, name: name)
        }

        /// The row of the step `id`, its reason, value and name those of `details`.
        init(
            id: String, path: [String], status: StepStatus, duration: TimeInterval?,
            details: StepDetails?
        ) {
            self.id = id
            self.path = path
            self.status = status
            self.duration = duration
            self.details = details
        }

        /// Its name, else its id: what reports show.
        public var shown: String { name ?? id }
    }

    /// What few steps of a large run have, for their summary rows and their standing in the
    /// run: in a box of its own, replaced (never changed) when one changes, shared by a row and
    /// the standing it was made from.
    final class StepDetails: Sendable {
        /// Why it failed or was skipped, or its note when cached.
        let reason: String?
        let value: ValuePreview?
        /// What people call it, when not its id.
        let name: String?

        private init(reason: String?, value: ValuePreview?, name: String?) {
            self.reason = reason
            self.value = value
            self.name = name
        }

        /// A box of these, `nil` if all three are.
        static func of(reason: String?, value: ValuePreview?, name: String?) -> StepDetails? {
            reason == nil && value == nil && name == nil
                ? nil : StepDetails(reason: reason, value: value, name: name)
        }
    }

    /// A step's output value as the reports show it: text as it is, JSON as compact JSON text,
    /// cut to ``limit`` bytes (at a character's start).
    public struct ValuePreview: Sendable, Equatable {
        /// The most bytes of a value kept.
        public static let limit = 4096

        /// `text` or `json`.
        public var format: OutputFormat
        /// The value's text, or its start.
        public var text: String
        /// The size of its whole text, in bytes.
        public var bytes: Int
        /// Whether `text` is only its start.
        public var isCut: Bool { text.utf8.count < bytes }

        /// The preview of `value`, given in `format`, with `secrets` masked in the whole
        /// before it is cut.
        public init(_ value: JSONValue, format: OutputFormat, secrets: SecretValues = .none) {
            self.format = format
            var whole = format == .json ? JSONWriter.string(value) : value.text
            if !secrets.isEmpty { whole = secrets.mask(whole) }
            bytes = whole.utf8.count
            guard bytes > Self.limit else {
                text = whole
                return
            }
            var end = whole.utf8.index(whole.utf8.startIndex, offsetBy: Self.limit)
            while end > whole.utf8.startIndex, UTF8.isContinuation(whole.utf8[end]) {
                end = whole.utf8.index(before: end)
            }
            text = String(whole.utf8[..<end])!
        }
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
        // Counted in place: a filtered copy of every row cost more than the rest of a no-op's
        // last line.
        var count = 0
        for row in rows where row.status == status { count += 1 }
        return count
    }
}

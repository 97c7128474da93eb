import ProcedureKit

/// Why a step did not run: its `when` was false.
///
/// A `when` that is false fails its condition with this error rather than answering `false`:
/// ProcedureKit, as the original does, ignores a `false` beside a satisfied condition (and a
/// step has others: its dependencies' outcome, the run's stop, its mutex), so only a failure
/// keeps the step from running whatever the others answer. The step's outcome reads it as
/// ``StepOutcome/skippedByCondition``, not as a failure.
struct ConditionIsFalse: Error, CustomStringConvertible, Sendable {
    /// Which part of the condition made it false, in words (`env CI is not set`).
    let reason: String

    var description: String { "its condition is false: \(reason)" }
}

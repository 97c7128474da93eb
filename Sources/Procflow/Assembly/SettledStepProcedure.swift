import ProcedureKit

/// An incremental step found up to date before the run started (its files already put back):
/// it gives the output its last run gave as soon as it may start, and runs nothing. Lighter
/// than an ``IncrementalStepProcedure``: a run where most steps are up to date builds
/// nothing else for them.
final class SettledStepProcedure: Procedure, StepPortsProcedure, @unchecked Sendable {
    // @unchecked Sendable: input and output live in `ports`, a `Locked` mutex; the rest is
    // constant.

    /// The output its last run gave.
    let value: JSONValue
    /// What was put back from the store, if anything.
    let note: String?
    /// Its input (taken and ignored: the outcome no longer depends on it) and output.
    let ports = Locked(StepPorts())

    /// A step whose outcome is `value`, with `note` on what was put back.
    init(value: JSONValue, note: String?) {
        self.value = value
        self.note = note
        super.init()
    }

    override func execute() {
        finish(withResult: .success(value))
    }
}

import ProcedureKit

/// An incremental step found up to date before the run started (its files already put back),
/// whose output another step takes: it gives the output its last run gave as soon as it may
/// start, and runs nothing. A settled step nothing takes data from gets no procedure at all.
final class SettledStepProcedure: Procedure, StepPortsProcedure, @unchecked Sendable {
    // @unchecked Sendable: input and output live in `ports`, a `Locked` mutex; the rest is
    // constant.

    /// The output its last run gave.
    let value: JSONValue
    /// What was put back from the store, if anything.
    let note: String?
    /// Its input (taken and ignored: the outcome no longer depends on it) and output.
    let ports = Locked(StepPorts())

    /// The procedure of `step`.
    init(_ step: SettledStep) {
        value = step.value
        note = step.note
        super.init()
    }

    override func execute() {
        finish(withResult: .success(value))
    }
}

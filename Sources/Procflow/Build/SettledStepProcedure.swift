import ProcedureKit

/// An incremental step found up to date before the run started (its files already put back):
/// it gives the output its last run gave as soon as it may start, and runs nothing. Lighter
/// than an ``IncrementalStepProcedure``: a run where most steps are up to date builds
/// nothing else for them.
final class SettledStepProcedure: Procedure, InputProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: input and output live in `values`, a `Locked` mutex; the rest is
    // constant.

    /// The output its last run gave.
    let value: JSONValue
    /// What was put back from the store, if anything.
    let note: String?
    private let values = Locked(
        (input: Pending<JSONValue>.pending, output: Pending<ProcedureResult<JSONValue>>.pending))

    /// A step whose outcome is `value`, with `note` on what was put back.
    init(value: JSONValue, note: String?) {
        self.value = value
        self.note = note
        super.init()
    }

    /// Taken and ignored: the outcome does not depend on it any more.
    var input: Pending<JSONValue> {
        get { values.withLock { $0.input } }
        set { values.withLock { $0.input = newValue } }
    }

    var output: Pending<ProcedureResult<JSONValue>> {
        get { values.withLock { $0.output } }
        set { values.withLock { $0.output = newValue } }
    }

    override func execute() {
        finish(withResult: .success(value))
    }
}

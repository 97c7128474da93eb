import ProcedureKit

/// Keeps a step that is not `always` from starting once the run has stopped early
/// (steps already built are cancelled directly; this catches those a branch builds later).
final class RunStopCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: every stored property is a constant.
    private let stop: RunStop

    init(_ stop: RunStop) {
        self.stop = stop
        super.init()
        name = "run stop"
    }

    override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        if let cancellation = stop.cancellation {
            completion(.failure(cancellation))
        } else {
            completion(.success(true))
        }
    }
}

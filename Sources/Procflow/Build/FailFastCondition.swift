import ProcedureKit

/// Keeps a step that is not `always` from starting once `--fail-fast` has stopped the run
/// (steps already built are cancelled directly; this catches those a branch builds later).
final class FailFastCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: every stored property is a constant.
    private let stop: FailFastStop

    init(_ stop: FailFastStop) {
        self.stop = stop
        super.init()
        name = "fail-fast"
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

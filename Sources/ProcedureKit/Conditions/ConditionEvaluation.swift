import Foundation

/// One evaluation of a procedure's conditions, decided as soon as its result is known.
///
/// Each condition waits for its own dependencies — those added with
/// ``Condition/addDependency(_:)``, and those it produces, which are added to the procedure's
/// queue as the evaluation starts — and is then evaluated, in turn with the procedure's other
/// callbacks; one without dependencies is evaluated at once. The results combine as
/// `allSatisfied` says, except that a failure decides at once, as in the original: conditions
/// still waiting are not evaluated, and the produced dependencies still running are cancelled.
/// Cancelling the evaluation (the procedure was cancelled) stops it the same way, deciding
/// nothing.
final class ConditionEvaluation: Sendable {
    private struct State {
        var results: [ConditionResult?]
        var remaining: Int
        var isDecided = false
        /// The dependencies produced for the conditions: cancelled once decided.
        var produced: [Operation] = []
    }

    private let state: Locked<State>
    private let procedure: Procedure
    private let queue: ProcedureQueue
    private let completion: @Sendable (ConditionResult) -> Void

    /// An evaluation of `count` conditions of `procedure`, whose produced dependencies run on
    /// `queue`; `completion` is called once, with the result, unless it is cancelled first.
    init(
        count: Int, procedure: Procedure, queue: ProcedureQueue,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        state = Locked(State(results: Array(repeating: nil, count: count), remaining: count))
        self.procedure = procedure
        self.queue = queue
        self.completion = completion
    }

    /// Starts evaluating `conditions`, as many as `count` said, in order.
    func start(_ conditions: [Condition]) {
        for (index, condition) in conditions.enumerated() {
            guard start(condition, at: index) else { return }
        }
    }

    /// Stops the evaluation without deciding, cancelling the produced dependencies still
    /// running.
    func cancel() {
        let produced = state.withLock { state -> [Operation] in
            guard !state.isDecided else { return [] }
            state.isDecided = true
            defer { state.produced = [] }
            return state.produced
        }
        for operation in produced where !operation.isFinished { operation.cancel() }
    }

    /// Evaluates `condition` now, or once its dependencies have finished; false, starting
    /// nothing, once the evaluation is decided.
    private func start(_ condition: Condition, at index: Int) -> Bool {
        let produced = condition.producedDependencies
        let waits = condition.dependencies + produced
        let started = state.withLock { state -> Bool in
            guard !state.isDecided else { return false }
            state.produced.append(contentsOf: produced)
            return true
        }
        guard started else { return false }
        if waits.isEmpty {
            evaluate(condition, at: index)
            return true
        }
        FinishCountdown.wait(for: waits) { [self] in
            procedure.post(.work { [self] in evaluate(condition, at: index) })
        }
        if !produced.isEmpty { queue.addOperations(produced) }
        return true
    }

    private func evaluate(_ condition: Condition, at index: Int) {
        guard !state.withLock({ $0.isDecided }) else { return }
        condition.evaluate(procedure: procedure) { [self] result in record(result, at: index) }
    }

    private func record(_ result: ConditionResult, at index: Int) {
        let decision = state.withLock { state -> (ConditionResult, [Operation])? in
            guard !state.isDecided, state.results[index] == nil else { return nil }
            state.results[index] = result
            state.remaining -= 1
            let decided: ConditionResult
            if result.error != nil {
                decided = result
            } else if state.remaining == 0 {
                decided = state.results.map { $0! }.allSatisfied
            } else {
                return nil
            }
            state.isDecided = true
            defer { state.produced = [] }
            return (decided, state.produced)
        }
        guard let (result, produced) = decision else { return }
        for operation in produced where !operation.isFinished { operation.cancel() }
        completion(result)
    }
}

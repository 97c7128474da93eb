import Foundation

/// One evaluation of a list of conditions — a procedure's, or a compound condition's parts —
/// decided as soon as its result is known.
///
/// Each condition waits for its own dependencies — those added with
/// ``Condition/addDependency(_:)``, and those it produces, which are added to the procedure's
/// queue as the evaluation starts — and, if they meet its dependency requirements, is then
/// evaluated, in turn with the procedure's other
/// callbacks; one without dependencies is evaluated at once. A compound condition evaluates its
/// parts in an evaluation of their own, a child of this one. The results combine as
/// `allSatisfied` (a procedure's conditions, an ``AndCondition``) or `anySatisfied` (an
/// ``OrCondition``) says, and, as in the original, the first result that settles it decides at
/// once (a failure, or for `anySatisfied` a `true`): conditions still waiting are not evaluated,
/// and the produced dependencies still running are cancelled, as are child evaluations.
/// Cancelling the evaluation (the procedure was cancelled) stops it the same way, deciding
/// nothing.
final class ConditionEvaluation: Sendable {
    /// How results combine.
    enum Combination: Sendable {
        /// As a procedure's conditions and an ``AndCondition`` do; a failure decides.
        case all
        /// As an ``OrCondition`` does; a `true` decides.
        case any
    }

    /// What still runs for an evaluation: cancelled once it is decided.
    private struct Running {
        /// The dependencies produced for the conditions.
        var produced: [Operation] = []
        /// The evaluations of compound conditions' parts.
        var children: [ConditionEvaluation] = []
    }

    private struct State {
        var results: [ConditionResult?]
        var remaining: Int
        var isDecided = false
        var running = Running()

        /// Marks the evaluation decided; returns what still runs for it.
        mutating func close() -> Running {
            isDecided = true
            defer { running = Running() }
            return running
        }
    }

    private let combination: Combination
    private let state: Locked<State>
    private let procedure: Procedure
    private let queue: ProcedureQueue
    private let completion: @Sendable (ConditionResult) -> Void

    /// An evaluation of `count` conditions of `procedure`, whose produced dependencies run on
    /// `queue`; `completion` is called once, with the result, unless it is cancelled first.
    init(
        _ combination: Combination, count: Int, procedure: Procedure, queue: ProcedureQueue,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        self.combination = combination
        state = Locked(State(results: Array(repeating: nil, count: count), remaining: count))
        self.procedure = procedure
        self.queue = queue
        self.completion = completion
    }

    /// An evaluation of a compound condition's `count` parts, stopped when this one is.
    func child(
        _ combination: Combination, count: Int,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) -> ConditionEvaluation {
        let child = ConditionEvaluation(
            combination, count: count, procedure: procedure, queue: queue, completion: completion)
        let isDecided = state.withLock { state -> Bool in
            if !state.isDecided { state.running.children.append(child) }
            return state.isDecided
        }
        if isDecided { child.cancel() }
        return child
    }

    /// Starts evaluating `conditions`, as many as `count` said, in order.
    func start(_ conditions: [Condition]) {
        guard !conditions.isEmpty else { return decide(nil) }
        for (index, condition) in conditions.enumerated() {
            guard start(condition, at: index) else { return }
        }
    }

    /// Stops the evaluation without deciding, cancelling the produced dependencies still
    /// running and the child evaluations.
    func cancel() {
        let running = state.withLock { state in
            state.isDecided ? nil : state.close()
        }
        if let running { Self.cancel(running) }
    }

    /// Evaluates `condition` now, or once its dependencies have finished; false, starting
    /// nothing, once the evaluation is decided.
    private func start(_ condition: Condition, at index: Int) -> Bool {
        let produced = condition.producedDependencies
        let waits = condition.dependencies + produced
        let started = state.withLock { state -> Bool in
            guard !state.isDecided else { return false }
            state.running.produced.append(contentsOf: produced)
            return true
        }
        guard started else { return false }
        if waits.isEmpty {
            evaluate(condition, at: index)
            return true
        }
        FinishCountdown.wait(for: waits) { [self] in
            procedure.post(
                .work { [self] in
                    if let unmet = condition.unmetDependencyRequirement() {
                        return decide(.failure(unmet), at: index)
                    }
                    evaluate(condition, at: index)
                })
        }
        if !produced.isEmpty { queue.addOperations(produced) }
        return true
    }

    private func evaluate(_ condition: Condition, at index: Int) {
        guard !state.withLock({ $0.isDecided }) else { return }
        condition.evaluate(procedure: procedure, within: self) { [self] result in
            decide(result, at: index)
        }
    }

    /// Records `result`, the condition at `index`'s, and decides if it settles the whole;
    /// with no result, decides on those recorded.
    private func decide(_ result: ConditionResult?, at index: Int = 0) {
        let decision = state.withLock { state -> (ConditionResult, Running)? in
            guard !state.isDecided else { return nil }
            if let result {
                guard state.results[index] == nil else { return nil }
                state.results[index] = result
                state.remaining -= 1
                if settles(result) { return (result, state.close()) }
            }
            guard state.remaining == 0 else { return nil }
            let results = state.results.map { $0! }
            let combined = combination == .all ? results.allSatisfied : results.anySatisfied
            return (combined, state.close())
        }
        guard let (result, running) = decision else { return }
        Self.cancel(running)
        completion(result)
    }

    /// Whether `result` decides the whole, whatever the others are.
    private func settles(_ result: ConditionResult) -> Bool {
        switch combination {
        case .all: return result.error != nil
        case .any: return result.value == true
        }
    }

    private static func cancel(_ running: Running) {
        for operation in running.produced where !operation.isFinished { operation.cancel() }
        for child in running.children { child.cancel() }
    }
}

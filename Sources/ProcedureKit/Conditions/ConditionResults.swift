/// Collects the results of several conditions as they arrive, from any thread, in any order.
final class ConditionResults: Sendable {
    private let state: Locked<(results: [ConditionResult?], remaining: Int)>

    init(count: Int) {
        state = Locked((Array(repeating: nil, count: count), count))
    }

    /// Records one result; returns all of them, in condition order, once the last arrives.
    func record(_ result: ConditionResult, at index: Int) -> [ConditionResult]? {
        state.withLock { state in
            guard state.results[index] == nil else { return nil }
            state.results[index] = result
            state.remaining -= 1
            return state.remaining == 0 ? state.results.map { $0! } : nil
        }
    }
}

/// Evaluates every condition at once, then calls `completion` once with the results in the
/// order of `conditions`.
func evaluateAll(
    _ conditions: [Condition], procedure: Procedure,
    completion: @escaping @Sendable ([ConditionResult]) -> Void
) {
    guard !conditions.isEmpty else { return completion([]) }
    let results = ConditionResults(count: conditions.count)
    for (index, condition) in conditions.enumerated() {
        condition.evaluate(procedure: procedure) { result in
            if let all = results.record(result, at: index) { completion(all) }
        }
    }
}

extension Array where Element == ConditionResult {
    /// The results combined as the original combines a procedure's conditions and an
    /// ``AndCondition``'s: the first failure, in order; otherwise satisfied if any result is
    /// `true`. A `false` is "ignored": it counts only when every result is `false` (or there is
    /// none), and then the whole is `false`.
    var allSatisfied: ConditionResult {
        if let failure = first(where: { $0.error != nil }) { return failure }
        return .success(contains { $0.value == true })
    }

    /// The results combined as an ``OrCondition`` combines them: `true` if any is; otherwise
    /// the first failure, in order; otherwise `false`.
    var anySatisfied: ConditionResult {
        if contains(where: { $0.value == true }) { return .success(true) }
        return first(where: { $0.error != nil }) ?? .success(false)
    }
}

/// Grants mutual-exclusion categories to procedures, one holder per category (or up to a
/// shared category's limit), first come first served, across every queue in the process.
///
/// A procedure asks for all its categories at once, in one critical section, so requests are
/// totally ordered and the oldest waiting request always heads every line it is in: no two
/// procedures can each hold what the other waits for.
final class ExclusivityManager: Sendable {
    static let shared = ExclusivityManager()

    private struct Category {
        /// Who holds places, and how many each.
        var holders: [(procedure: Procedure, weight: Int)] = []
        /// First come, first served. A procedure that gave up waiting stays here until it
        /// comes to the front, and is skipped then (it is no longer in `State.missing`).
        var waiting = RingBuffer<(procedure: Procedure, weight: Int)>()
        /// How many places it has.
        var limit = 1
        /// How many places its holders take.
        var taken = 0

        func hasRoom(for weight: Int) -> Bool { taken + weight <= limit }

        /// Takes places for `procedure` if there are enough and nobody waits before it, or a
        /// place in line; true if it holds the category now. A category held by one of
        /// `ancestors` is granted without changing hands.
        mutating func claim(
            for procedure: Procedure, weight: Int, coveredBy ancestors: Set<ObjectIdentifier>
        ) -> Bool {
            if !ancestors.isEmpty,
                holders.contains(where: { ancestors.contains(ObjectIdentifier($0.procedure)) })
            {
                return true
            }
            if hasRoom(for: weight), waiting.isEmpty {
                hold(procedure, weight: weight)
                return true
            }
            waiting.append((procedure, weight))
            return false
        }

        mutating func hold(_ procedure: Procedure, weight: Int) {
            holders.append((procedure, weight))
            taken += weight
        }

        /// Removes `procedure` from the holders; false if it was not one.
        mutating func leave(_ procedure: Procedure) -> Bool {
            guard let index = holders.firstIndex(where: { $0.procedure === procedure }) else {
                return false
            }
            taken -= holders.remove(at: index).weight
            return true
        }
    }

    private struct State {
        var categories: [String: Category] = [:]
        /// For each waiting procedure, how many of its categories it does not hold yet.
        var missing: [ObjectIdentifier: Int] = [:]
    }

    private let state = Locked(State())

    /// Asks for `categories` on behalf of `procedure`.
    ///
    /// - Returns: true if the procedure holds them all now; otherwise
    ///   ``Procedure/exclusivityGranted(markReady:)`` is called once it does.
    ///
    /// A category held by a group the procedure runs in is granted at once without changing
    /// hands: the group's exclusive turn covers its children.
    func request(
        _ procedure: Procedure, categories: [(name: String, limit: Int, weight: Int)]
    ) -> Bool {
        let ancestors = Set(procedure.ancestorGroups.map(ObjectIdentifier.init))
        return state.withLock { state in
            var missing = 0
            for (name, limit, weight) in categories {
                // Mutated in place: a copy would copy the line of waiters each time.
                let granted = state.categories[name, default: Category(limit: limit)].claim(
                    for: procedure, weight: min(weight, limit), coveredBy: ancestors)
                if !granted { missing += 1 }
            }
            if missing > 0 { state.missing[ObjectIdentifier(procedure)] = missing }
            return missing == 0
        }
    }

    /// Gives up every category `procedure` holds or waits for, granting each to the next in
    /// line. Safe to call more than once.
    func release(_ procedure: Procedure) {
        let categories = procedure.protected.withLock { $0.exclusivityCategories }
        let granted = state.withLock { state -> [Procedure] in
            var granted: [Procedure] = []
            // Not waiting any more: skipped when it comes to the front of a line.
            state.missing[ObjectIdentifier(procedure)] = nil
            for name in categories {
                guard let index = state.categories.index(forKey: name) else { continue }
                guard state.categories.values[index].leave(procedure) else { continue }
                while let next = state.categories.values[index].waiting.first,
                    state.categories.values[index].hasRoom(for: next.weight)
                        || state.missing[ObjectIdentifier(next.procedure)] == nil
                {
                    _ = state.categories.values[index].waiting.popFirst()
                    let key = ObjectIdentifier(next.procedure)
                    guard let missing = state.missing[key] else { continue }  // gave up
                    state.categories.values[index].hold(next.procedure, weight: next.weight)
                    if missing == 1 {
                        state.missing[key] = nil
                        granted.append(next.procedure)
                    } else {
                        state.missing[key] = missing - 1
                    }
                }
                let category = state.categories.values[index]
                if category.holders.isEmpty, category.waiting.isEmpty {
                    state.categories.remove(at: index)
                }
            }
            return granted
        }
        for next in granted { next.exclusivityGranted() }
    }
}

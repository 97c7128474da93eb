/// Grants mutual-exclusion categories to procedures, one holder per category (or up to a
/// shared category's limit), first come first served, across every queue in the process.
///
/// A procedure asks for all its categories at once, in one critical section, so requests are
/// totally ordered and the oldest waiting request always heads every line it is in: no two
/// procedures can each hold what the other waits for.
final class ExclusivityManager: Sendable {
    static let shared = ExclusivityManager()

    private struct Category {
        var holders: [Procedure] = []
        var waiting: [Procedure] = []
        /// How many holders it admits.
        var limit = 1

        var hasRoom: Bool { holders.count < limit }
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
    func request(_ procedure: Procedure, categories: [(name: String, limit: Int)]) -> Bool {
        let ancestors = Set(procedure.ancestorGroups.map(ObjectIdentifier.init))
        return state.withLock { state in
            var missing = 0
            for (name, limit) in categories {
                var category = state.categories[name] ?? Category(limit: limit)
                if category.holders.contains(where: { ancestors.contains(ObjectIdentifier($0)) }) {
                    continue
                }
                if category.hasRoom, category.waiting.isEmpty {
                    category.holders.append(procedure)
                } else {
                    category.waiting.append(procedure)
                    missing += 1
                }
                state.categories[name] = category
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
            state.missing[ObjectIdentifier(procedure)] = nil
            for name in categories {
                guard var category = state.categories[name] else { continue }
                category.waiting.removeAll { $0 === procedure }
                if let index = category.holders.firstIndex(where: { $0 === procedure }) {
                    category.holders.remove(at: index)
                    if !category.waiting.isEmpty {
                        let next = category.waiting.removeFirst()
                        category.holders.append(next)
                        let key = ObjectIdentifier(next)
                        let missing = state.missing[key, default: 1] - 1
                        if missing == 0 {
                            state.missing[key] = nil
                            granted.append(next)
                        } else {
                            state.missing[key] = missing
                        }
                    }
                }
                state.categories[name] =
                    category.holders.isEmpty && category.waiting.isEmpty ? nil : category
            }
            return granted
        }
        for next in granted { next.exclusivityGranted() }
    }
}

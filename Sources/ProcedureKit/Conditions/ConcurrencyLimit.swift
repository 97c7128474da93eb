/// Lets at most `limit` places of the same category be taken at once, across all queues: a
/// counting version of ``MutuallyExclusive``. A procedure takes one place, or `weight` places
/// (a step that needs two cores takes two of the cores there are). Procedures wait their turn
/// in the order they became ready to execute — one that needs more places than are free waits,
/// and so do those behind it — and ask for this category together with their
/// mutual-exclusion categories, so that overlapping claims never deadlock.
///
/// Every procedure of a category should be given the same limit.
public final class ConcurrencyLimit: Condition, @unchecked Sendable {
    // @unchecked Sendable: the stored properties are constants.

    /// The category this condition claims places in.
    public let category: String
    /// How many places the category has.
    public let limit: Int
    /// How many of them the procedure takes: at least 1, at most `limit`.
    public let weight: Int

    /// Claims `weight` of `limit` places in `category`.
    public init(category: String, limit: Int, weight: Int = 1) {
        self.category = category
        self.limit = max(1, limit)
        self.weight = min(max(1, weight), self.limit)
        super.init()
        addToAttachedProcedure(sharedCategory: category, limit: self.limit, weight: self.weight)
    }

    /// `ConcurrencyLimit<category, limit>` (`weight of limit` for a weight above 1) unless
    /// another was given: made when asked, not for every procedure given a limit (a run
    /// gives one to each of its steps).
    public override var name: String? {
        get {
            super.name
                ?? (weight == 1
                    ? "ConcurrencyLimit<\(category), \(limit)>"
                    : "ConcurrencyLimit<\(category), \(weight) of \(limit)>")
        }
        set { super.name = newValue }
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        completion(.success(true))
    }
}

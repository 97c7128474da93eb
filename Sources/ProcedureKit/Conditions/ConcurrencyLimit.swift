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
        name =
            self.weight == 1
            ? "ConcurrencyLimit<\(category), \(self.limit)>"
            : "ConcurrencyLimit<\(category), \(self.weight) of \(self.limit)>"
        addToAttachedProcedure(sharedCategory: category, limit: self.limit, weight: self.weight)
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        completion(.success(true))
    }
}

/// Lets at most `limit` procedures of the same category execute at once, across all queues:
/// a counting version of ``MutuallyExclusive``. Procedures wait their turn in the order they
/// became ready to execute, and ask for this category together with their mutual-exclusion
/// categories, so that overlapping claims never deadlock.
///
/// Every procedure of a category should be given the same limit.
public final class ConcurrencyLimit: Condition, @unchecked Sendable {
    // @unchecked Sendable: both stored properties are constants.

    /// The category this condition claims a place in.
    public let category: String
    /// How many procedures of the category execute at once, at most.
    public let limit: Int

    /// Claims one of `limit` places in `category`.
    public init(category: String, limit: Int) {
        self.category = category
        self.limit = max(1, limit)
        super.init()
        name = "ConcurrencyLimit<\(category), \(self.limit)>"
        addToAttachedProcedure(sharedCategory: category, limit: self.limit)
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        completion(.success(true))
    }
}

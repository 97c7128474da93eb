/// Makes a procedure mutually exclusive with every other procedure of the same category: at
/// most one of them executes at a time, across all queues, and they take turns in the order
/// they became ready to execute.
///
/// The category is the name of `T`, or a string given with ``init(category:)``.
public final class MutuallyExclusive<T>: Condition, @unchecked Sendable {
    /// The category this condition claims.
    public let category: String

    /// Claims the category named after `T`.
    public override convenience init() {
        self.init(category: "MutuallyExclusive<\(String(reflecting: T.self))>")
    }

    /// Claims `category`. Its name is `MutuallyExclusive<T>`, as the original's is; the
    /// category says which procedures it keeps apart.
    public init(category: String) {
        self.category = category
        super.init()
        name = "MutuallyExclusive<\(T.self)>"
        addToAttachedProcedure(mutuallyExclusiveCategory: category)
    }

    public override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        completion(.success(true))
    }
}

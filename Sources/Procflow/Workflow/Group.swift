/// Nested steps, run as one, with an input and an output bound to children.
public struct Group: Sendable {
    /// The procedures it holds, in file order.
    public var steps: [Step]
    /// The child the group's input is forwarded to.
    public var inputTo: Reference?
    /// The child whose output becomes the group's.
    public var outputFrom: Reference?
    /// How many children run at once, within the run's limit.
    public var maxConcurrency: Int?
    /// For the group an `include` makes: the file its steps come from, as the includer names
    /// it.
    public var includedFrom: String? = nil
}

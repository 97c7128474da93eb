/// Nested steps, run as one, with an input and an output bound to children.
public struct Group: Sendable {
    public var steps: [Step]
    /// The child the group's input is forwarded to.
    public var inputTo: Reference?
    /// The child whose output becomes the group's.
    public var outputFrom: Reference?
    public var maxConcurrency: Int?
}

/// A mention of a step by id, with where the mention is.
public struct Reference: Sendable {
    /// The id mentioned.
    public var id: String
    /// Where the mention is.
    public var pointer: JSONPointer
    var offset: Int
}

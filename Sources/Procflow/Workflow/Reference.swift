/// A mention of a step by id, with where the mention is.
public struct Reference: Sendable {
    public var id: String
    public var pointer: JSONPointer
    var offset: Int
}

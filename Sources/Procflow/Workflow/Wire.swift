/// Data taken from another step's output, optionally a part of a JSON output.
public struct Wire: Sendable {
    /// The step whose output is taken.
    public var from: Reference
    /// The part of a JSON output to take.
    public var select: JSONPointer?
    /// Where the wire is in the file.
    public var pointer: JSONPointer
    var offset: Int
}

extension Wire {
    /// The part of `value` the wire takes: what ``select`` points at, or all of it; `nil` when
    /// there is nothing there.
    public func selected(from value: JSONValue) -> JSONValue? {
        guard let select else { return value }
        return value.value(at: select)
    }
}

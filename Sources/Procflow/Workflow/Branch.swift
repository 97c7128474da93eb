/// Runs one of several sets of steps, chosen by another step's output when it finishes.
public struct Branch: Sendable {
    public var on: Wire
    public var cases: [Case]
    /// The steps to run when no case matches.
    public var otherwise: [Step]

    public struct Case: Sendable {
        /// The value the output must equal (a typed JSON comparison).
        public var equals: JSONValue
        public var steps: [Step]
    }
}

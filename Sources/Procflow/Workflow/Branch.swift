/// Runs one of several sets of steps, chosen by another step's output when it finishes.
public struct Branch: Sendable {
    /// The output that decides the case.
    public var on: Wire
    /// The cases, in file order: the first whose value equals the output runs.
    public var cases: [Case]
    /// The steps to run when no case matches.
    public var otherwise: [Step]

    /// Steps to run when the output equals a value.
    public struct Case: Sendable {
        /// The value the output must equal (a typed JSON comparison).
        public var equals: JSONValue
        /// The steps of the case.
        public var steps: [Step]
    }
}

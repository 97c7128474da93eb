/// What becomes of a step's output.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// No output: other steps cannot take data from it.
    case none
    /// The output as text.
    case text
    /// The output parsed as JSON.
    case json
}

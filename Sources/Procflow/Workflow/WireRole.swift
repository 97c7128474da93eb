/// What a wire is for.
public enum WireRole: Sendable, Equatable {
    /// The step's `input`: stdin, a request body, a file's content, a group's input.
    case input
    /// A shell step's named input: the environment variable of that name.
    case environment(String)
    /// The value a branch chooses its case by.
    case branch
    /// A value the step's condition compares.
    case condition
    /// The list a `forEach` runs the step over.
    case forEach
}

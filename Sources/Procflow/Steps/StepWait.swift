/// What a step waited for before it could go on: the waits a trace and the events show.
public enum StepWait: String, Sendable, CaseIterable {
    /// Its `when` condition was being evaluated (a command's, or an instant's).
    case condition
    /// Ready otherwise, it waited for its mutual-exclusion categories (and a place under the
    /// concurrency limit).
    case mutex
    /// Between two attempts of a retry.
    case backoff
}

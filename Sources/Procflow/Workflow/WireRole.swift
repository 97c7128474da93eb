/// What a wire is for.
public enum WireRole: Sendable, Equatable {
    case input
    case environment(String)
    case branch
    case condition
}

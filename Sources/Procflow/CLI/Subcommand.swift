/// procflow's subcommands. A new command is a new case, and the compiler points at every
/// place that must know it.
enum Subcommand: String, CaseIterable {
    case run
    case validate
    case graph
    case serve
    case cache

    /// The command's type.
    var command: any ParsableCommand.Type {
        switch self {
        case .run: return RunCommand.self
        case .validate: return ValidateCommand.self
        case .graph: return GraphCommand.self
        case .serve: return ServeCommand.self
        case .cache: return CacheCommand.self
        }
    }
}

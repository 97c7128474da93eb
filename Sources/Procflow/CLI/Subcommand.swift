/// procflow's subcommands. A new command is a new case, and the compiler points at every
/// place that must know it.
enum Subcommand: String, CaseIterable {
    case run
    case `init`
    case list
    case validate
    case graph
    case export
    case serve
    case cache
    case completion
    case argoPod = "argo-pod"

    /// The command's type.
    var command: any ParsableCommand.Type {
        switch self {
        case .run: return RunCommand.self
        case .`init`: return InitCommand.self
        case .list: return ListCommand.self
        case .validate: return ValidateCommand.self
        case .graph: return GraphCommand.self
        case .export: return ExportCommand.self
        case .serve: return ServeCommand.self
        case .cache: return CacheCommand.self
        case .completion: return CompletionCommand.self
        case .argoPod: return ArgoPodCommand.self
        }
    }

    /// Whether `procflow help` lists it: not `argo-pod`, which only exported pods run.
    var isListed: Bool { self != .argoPod }
}

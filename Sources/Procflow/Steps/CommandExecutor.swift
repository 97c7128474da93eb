import Foundation

/// Where a shell step's command runs: on this machine (``LocalExecutor``), or elsewhere. Each
/// executor lives in a folder of its own under `Steps/` and is listed once, in
/// ``CommandExecutors/all``. Everything else about a step (order, conditions, wires, retries,
/// caching, events) is the runner's, whatever runs the command.
protocol CommandExecutor: Sendable {
    /// The name `--executor` and a workflow's `executor` give it.
    var name: String { get }
    /// Whether it runs commands as processes of this machine, so that a script of plain words
    /// can be tried as a program first (a spawn that fails falls back to the shell).
    var spawnsLocally: Bool { get }

    /// Starts `launch`; `completion` is called once, when the command is over.
    ///
    /// - Throws: a ``StepError`` when the command cannot be started.
    func start(
        _ launch: CommandLaunch, completion: @escaping @Sendable (CommandOutcome) -> Void
    ) throws(StepError) -> any RunningCommand
}

/// A command an executor started.
protocol RunningCommand: AnyObject, Sendable {
    /// Ends it: `signal` first, then SIGKILL after `gracePeriod` to whatever is left.
    func terminate(signal: Int32, gracePeriod: TimeInterval)
    /// Its process group on this machine, if it has one.
    var processGroup: pid_t? { get }
}

/// The executors procflow knows: one line each.
enum CommandExecutors {
    /// Every executor; the first is the default.
    static let all: [any CommandExecutor] = [LocalExecutor()]

    /// The executor `name` names, if any.
    static func named(_ name: String) -> (any CommandExecutor)? {
        all.first { $0.name == name }
    }
}

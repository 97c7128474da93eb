import Foundation
import ProcedureKit

/// Where a shell step's command runs: on this machine (``LocalExecutor``), or elsewhere
/// (``SlurmExecutor``). Each executor lives in a folder of its own under `Steps/` and is
/// listed once, in ``CommandExecutors/all``. Everything else about a step (order, conditions,
/// wires, retries, caching, events) is the runner's, whatever runs the command.
protocol CommandExecutor: Sendable {
    /// The name `--executor` and a workflow's `executor` give it.
    var name: String { get }
    /// Whether it runs commands as processes of this machine, so that a script of plain words
    /// can be tried as a program first (a spawn that fails falls back to the shell), and its
    /// commands take their `cpus` and `memory` from this machine's share.
    var spawnsLocally: Bool { get }

    /// Starts `launch`; `completion` is called once, when the command is over.
    ///
    /// - Throws: a ``StepError`` when the command cannot be started.
    func start(
        _ launch: CommandLaunch, completion: @escaping @Sendable (CommandOutcome) -> Void
    ) throws(StepError) -> any RunningCommand

    /// How many of its commands are under way (started, not yet over), for the notice an
    /// interrupt prints; local commands are counted by their process groups instead.
    var commandsUnderWay: Int { get }

    /// Ends what it still runs once the run is over (the commands it ran all reported their
    /// end, or the run was killed), waiting at most `gracePeriod` unless `hurry` turns true;
    /// returns a line on what it did, if it has one to give.
    func endRun(gracePeriod: TimeInterval, hurry: @escaping @Sendable () -> Bool) -> String?
}

extension CommandExecutor {
    var commandsUnderWay: Int { 0 }

    func endRun(gracePeriod: TimeInterval, hurry: @escaping @Sendable () -> Bool) -> String? {
        nil
    }
}

/// A command an executor started.
protocol RunningCommand: AnyObject, Sendable {
    /// Ends it: `signal` first, then SIGKILL after `gracePeriod` to whatever is left.
    func terminate(signal: Int32, gracePeriod: TimeInterval)
    /// Its process group on this machine, if it has one.
    var processGroup: pid_t? { get }
}

/// What an executor is made with for a run.
struct ExecutorContext: Sendable {
    /// A private directory of the run's own, for what an executor writes (job scripts, their
    /// input and output); it may not exist yet.
    var directory: String
    /// procflow's environment, to find the executor's programs in.
    var environment: [String: String]
}

/// The executors one run made, each when a step first asked for it, so that the run can end
/// what they still run.
final class RunExecutors: Sendable {
    private let context: ExecutorContext
    private let made = Locked([String: any CommandExecutor]())

    init(context: ExecutorContext) {
        self.context = context
    }

    /// The executor `name`, made for this run the first time it is asked for; the local one
    /// for a name no executor has (the loader lets none through).
    func executor(_ name: String) -> any CommandExecutor {
        made.withLock { made in
            if let executor = made[name] { return executor }
            let executor =
                CommandExecutors.make(name, context: context) ?? LocalExecutor()
            made[name] = executor
            return executor
        }
    }

    /// How many commands the run's executors have under way.
    var commandsUnderWay: Int {
        made.withLock { Array($0.values) }.reduce(0) { $0 + $1.commandsUnderWay }
    }

    /// Ends what every executor still runs (``CommandExecutor/endRun(gracePeriod:hurry:)``);
    /// the lines they have to say, in the order of ``CommandExecutors/all``.
    func endRun(gracePeriod: TimeInterval, hurry: @escaping @Sendable () -> Bool) -> [String] {
        let made = made.withLock { $0 }
        return CommandExecutors.names.compactMap { name in
            made[name]?.endRun(gracePeriod: gracePeriod, hurry: hurry)
        }
    }
}

/// The executors procflow knows: one line each.
enum CommandExecutors {
    /// Every executor's name and how a run makes it; the first is the default.
    static let all: [(name: String, make: @Sendable (ExecutorContext) -> any CommandExecutor)] = [
        ("local", { _ in LocalExecutor() }),
        ("slurm", { SlurmExecutor(context: $0) }),
    ]

    /// Their names.
    static var names: [String] { all.map(\.name) }

    /// The executor `name` names, made for a run with `context`; `nil` if there is none.
    static func make(_ name: String, context: ExecutorContext) -> (any CommandExecutor)? {
        all.first { $0.name == name }?.make(context)
    }
}

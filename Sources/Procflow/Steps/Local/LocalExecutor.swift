import Foundation

/// Runs commands as processes of this machine (``ProcessRun``): each leads its own process
/// group, its output is read as it comes, and its teardown is a signal, a grace period, then
/// SIGKILL to the group.
struct LocalExecutor: CommandExecutor {
    let name = "local"
    let spawnsLocally = true

    func start(
        _ launch: CommandLaunch, completion: @escaping @Sendable (CommandOutcome) -> Void
    ) throws(StepError) -> any RunningCommand {
        try ProcessRun.start(launch, completion: completion)
    }
}

extension ProcessRun: RunningCommand {
    var processGroup: pid_t? { pid }
}

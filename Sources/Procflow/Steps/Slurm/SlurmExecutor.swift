import Foundation

/// Runs commands as Slurm jobs: each attempt of a step is one `sbatch` (the instances of a
/// `forEach` that start together, one job array), its stdout and stderr are files in the
/// run's directory that procflow follows, and its end comes from `squeue`. One
/// ``SlurmController`` per run does the talking to Slurm.
///
/// The working directory and the state directory must be on a filesystem every node sees.
struct SlurmExecutor: CommandExecutor {
    let name = "slurm"
    let spawnsLocally = false
    let controller: SlurmController

    init(context: ExecutorContext) {
        controller = SlurmController(
            directory: context.directory, environment: context.environment)
    }

    func start(
        _ launch: CommandLaunch, completion: @escaping @Sendable (CommandOutcome) -> Void
    ) throws(StepError) -> any RunningCommand {
        if let program = launch.arguments.first, program.contains("=") {
            throw StepError(
                .spawnFailed,
                "cannot run \(program) as a Slurm job: a program whose name holds '=' would be taken for a variable"
            )
        }
        let job = SlurmJob(launch: launch, controller: controller, completion: completion)
        controller.submit(job)
        return job
    }

    var commandsUnderWay: Int { controller.underWay }

    func endRun(gracePeriod: TimeInterval, hurry: @escaping @Sendable () -> Bool) -> String? {
        controller.end(gracePeriod: gracePeriod, hurry: hurry)
    }
}

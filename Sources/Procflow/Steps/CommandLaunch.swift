import Foundation

/// A command as a shell step hands it to an executor: what to run, with what, and what to do
/// with its output.
struct CommandLaunch {
    var executable: String
    /// The arguments, the program name first.
    var arguments: [String]
    /// The environment a run's commands share (rendered once for them all).
    var sharedEnvironment: SharedEnvironment
    /// The command's own variables, over ``sharedEnvironment``: its step's `env`, wired
    /// values, `MAKEFLAGS`.
    var ownEnvironment: [String: String] = [:]
    var workingDirectory: String?
    var stdin: [UInt8]?
    /// Whether to keep stdout, up to `captureLimit` bytes.
    var captureStdout: Bool
    var captureLimit: Int
    /// How long leftovers get between SIGTERM and SIGKILL once the command has exited.
    var gracePeriod: TimeInterval
    /// How long to wait, after the command exits, for pipes that its leftovers hold open.
    var pipeGracePeriod: TimeInterval
    /// Where a local command's process group is registered while it may hold processes.
    var groups: ProcessGroups = .shared
    /// Descriptors a local command gets besides its standard streams (`source` of procflow's
    /// becomes `target` of the command's): the jobserver's, when it is handed it. Every other
    /// descriptor procflow has is close-on-exec.
    var inheritedDescriptors: [(source: Int32, target: Int32)] = []
    var onOutput: (@Sendable (ShellProcedure.Stream, [Substring]) -> Void)?
    /// The run's secrets, which output lines are never cut inside.
    var secrets = SecretValues.none
    /// What an executor that submits jobs asks for them.
    var job = JobRequest()

    init(
        executable: String, arguments: [String], environment: [String: String],
        workingDirectory: String?, stdin: [UInt8]?, captureStdout: Bool, captureLimit: Int,
        gracePeriod: TimeInterval, pipeGracePeriod: TimeInterval, groups: ProcessGroups = .shared,
        onOutput: (@Sendable (ShellProcedure.Stream, [Substring]) -> Void)? = nil,
        secrets: SecretValues = .none, job: JobRequest = JobRequest()
    ) {
        self.init(
            executable: executable, arguments: arguments,
            sharedEnvironment: SharedEnvironment(environment), workingDirectory: workingDirectory,
            stdin: stdin, captureStdout: captureStdout, captureLimit: captureLimit,
            gracePeriod: gracePeriod, pipeGracePeriod: pipeGracePeriod, groups: groups,
            onOutput: onOutput, secrets: secrets, job: job)
    }

    init(
        executable: String, arguments: [String], sharedEnvironment: SharedEnvironment,
        workingDirectory: String?, stdin: [UInt8]?, captureStdout: Bool, captureLimit: Int,
        gracePeriod: TimeInterval, pipeGracePeriod: TimeInterval, groups: ProcessGroups,
        onOutput: (@Sendable (ShellProcedure.Stream, [Substring]) -> Void)?,
        secrets: SecretValues, job: JobRequest
    ) {
        self.executable = executable
        self.arguments = arguments
        self.sharedEnvironment = sharedEnvironment
        self.workingDirectory = workingDirectory
        self.stdin = stdin
        self.captureStdout = captureStdout
        self.captureLimit = captureLimit
        self.gracePeriod = gracePeriod
        self.pipeGracePeriod = pipeGracePeriod
        self.groups = groups
        self.onOutput = onOutput
        self.secrets = secrets
        self.job = job
    }

    /// The command's whole environment: its own variables over the shared ones.
    var environment: [String: String] {
        ownEnvironment.isEmpty
            ? sharedEnvironment.values
            : sharedEnvironment.values.merging(ownEnvironment) { _, own in own }
    }

    /// The value of `name` in the command's environment.
    func environmentValue(_ name: String) -> String? {
        ownEnvironment[name] ?? sharedEnvironment.values[name]
    }
}

extension CommandLaunch {
    /// `script` for `/bin/sh -e -c`, its output kept by no one and nothing on its stdin: a
    /// condition's command, a service's readiness command.
    static func quietScript(
        _ script: String, environment: [String: String], directory: String?,
        gracePeriod: TimeInterval, groups: ProcessGroups
    ) -> CommandLaunch {
        CommandLaunch(
            executable: "/bin/sh",
            arguments: Shell.Interpreter.sh.arguments(
                running: script, shHasPipefail: ShellProcedure.shHasPipefail),
            environment: environment, workingDirectory: directory, stdin: nil,
            captureStdout: false, captureLimit: 0, gracePeriod: gracePeriod,
            pipeGracePeriod: 0.2, groups: groups, onOutput: nil)
    }
}

/// What a step asks of an executor that runs its command as a job elsewhere.
struct JobRequest: Sendable, Hashable {
    /// The step's id, to name the job.
    var name = ""
    var resources = Resources()
    var slurm = SlurmSettings()
    /// The step's timeout, in seconds: the job's time limit unless `resources.time` says.
    var timeout: Double?
    /// The `forEach` step whose instance this is: instances submitted together with the same
    /// request become one job array.
    var arrayKey: String?
}

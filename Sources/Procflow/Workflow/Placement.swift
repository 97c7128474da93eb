/// Where a shell step's command runs, and what it asks of the machine that runs it: the
/// `executor`, `resources` and `slurm` fields of a step, of the groups holding it and of the
/// workflow, the innermost first.
public struct Placement: Sendable, Equatable {
    /// The executor the step or a group holding it names; `nil` leaves it to `--executor`,
    /// then to the workflow's `executor`, then to `local`.
    public var executor: String?
    /// What its command needs.
    public var resources = Resources()
    /// What a Slurm job of it is submitted with.
    public var slurm = SlurmSettings()

    /// A placement; by default nothing said.
    public init(
        executor: String? = nil, resources: Resources = Resources(),
        slurm: SlurmSettings = SlurmSettings()
    ) {
        self.executor = executor
        self.resources = resources
        self.slurm = slurm
    }

    /// These values, with `outer`'s where these have none.
    func over(_ outer: Placement) -> Placement {
        Placement(
            executor: executor ?? outer.executor, resources: resources.over(outer.resources),
            slurm: slurm.over(outer.slurm))
    }
}

extension Workflow {
    /// The executor of shell steps that neither they nor a group holding them place:
    /// `override` (`--executor`), else the workflow's `executor`, else `local`.
    public func defaultExecutor(override: String?) -> String {
        override ?? executor ?? "local"
    }
}

extension Step {
    /// The executor that runs the step's command, if it is a shell step: its own or a
    /// group's, else `fallback` (``Workflow/defaultExecutor(override:)``).
    public func executor(default fallback: String) -> String? {
        guard case .shell = kind else { return nil }
        return placement.executor ?? fallback
    }
}

/// What a step needs to run: cores, memory, time and GPUs. On Slurm they become the job's
/// request; on this machine `cpus` and `memory` bound what runs at once.
public struct Resources: Sendable, Hashable {
    /// Cores: a step needing 2 takes 2 of `--max-concurrent`'s places.
    public var cpus: Int?
    /// Memory, in MiB.
    public var memory: Int?
    /// Wall time, in seconds: the job's `--time` (a step's `timeout` gives one too).
    public var time: Double?
    /// GPUs, for a Slurm job (`--gpus`).
    public var gpus: Int?

    /// Resources; by default none asked for.
    public init(cpus: Int? = nil, memory: Int? = nil, time: Double? = nil, gpus: Int? = nil) {
        self.cpus = cpus
        self.memory = memory
        self.time = time
        self.gpus = gpus
    }

    func over(_ outer: Resources) -> Resources {
        Resources(
            cpus: cpus ?? outer.cpus, memory: memory ?? outer.memory, time: time ?? outer.time,
            gpus: gpus ?? outer.gpus)
    }
}

/// What a Slurm job is submitted with besides its resources.
public struct SlurmSettings: Sendable, Hashable {
    /// The partition (`--partition`).
    public var partition: String?
    /// The account charged (`--account`).
    public var account: String?
    /// The quality of service (`--qos`).
    public var qos: String?
    /// More `sbatch` options, each one argument (`["--constraint=avx2"]`).
    public var extraArgs: [String]?
    /// How long, in seconds, a job may wait in the queue before the step fails with Slurm's
    /// reason for the wait.
    public var pendingTimeout: Double?

    /// Settings; by default the cluster's defaults.
    public init(
        partition: String? = nil, account: String? = nil, qos: String? = nil,
        extraArgs: [String]? = nil, pendingTimeout: Double? = nil
    ) {
        self.partition = partition
        self.account = account
        self.qos = qos
        self.extraArgs = extraArgs
        self.pendingTimeout = pendingTimeout
    }

    func over(_ outer: SlurmSettings) -> SlurmSettings {
        SlurmSettings(
            partition: partition ?? outer.partition, account: account ?? outer.account,
            qos: qos ?? outer.qos, extraArgs: extraArgs ?? outer.extraArgs,
            pendingTimeout: pendingTimeout ?? outer.pendingTimeout)
    }
}

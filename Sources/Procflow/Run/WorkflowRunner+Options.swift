import Foundation

extension WorkflowRunner {
    /// How a run behaves: limits, signals, the environment it starts from.
    public struct Options: Sendable {
        /// How many steps run at once (per group).
        public var maxConcurrent: Int
        /// Cancel everything after the first failure.
        public var failFast: Bool
        /// How long a command gets between SIGTERM (or a forwarded signal) and SIGKILL.
        public var gracePeriod: TimeInterval
        /// The most stdout bytes kept for a text or JSON output.
        public var captureLimit: Int
        /// procflow's own environment.
        public var environment: [String: String]
        /// The path of the procflow binary, given to commands as `PROCFLOW`.
        public var executable: String
        /// Whether every process below this one belongs to the run (as in the `procflow`
        /// command): then procflow becomes their subreaper, and ends every one still alive
        /// when the run ends. Otherwise the run ends the processes that carry its run id.
        public var ownsDescendants: Bool
        /// What is remembered between runs, for incremental steps; `nil` to run every step
        /// and remember nothing.
        public var cache: StepCache?
        /// Run every step, incremental ones included, and record them.
        public var force: Bool
        /// Report why each step runs.
        public var explain: Bool
        /// Where shell steps run when neither they nor a group holding them say (`--executor`);
        /// `nil` leaves it to the workflow's `executor`, then to this machine.
        public var executor: String? = nil
        /// How many jobs may be submitted to a scheduler and not yet over at once.
        public var maxJobs: Int = 100
        /// A private directory where executors that submit jobs keep their files, which every
        /// node must see; `.procflow/jobs` beside the workflow when `nil`.
        public var jobDirectory: String? = nil
        /// Whether the shell steps run on this machine share a GNU make jobserver of
        /// `maxConcurrent` tokens, handed to their commands in `MAKEFLAGS`.
        public var jobserver = true
        /// The FIFO of a jobserver procflow was handed (`fifo:PATH` in its `MAKEFLAGS`), to
        /// join rather than make a pool of its own: when no `--max-concurrent` was given.
        public var jobserverToJoin: String? = nil
        /// The incremental steps an up-to-date snapshot settled before the run (see
        /// ``UpToDateSnapshot/settledSteps``): taken as they are, the cache not asked. The
        /// run then has no cache: none of its other steps is incremental.
        var settledBySnapshot: [String: SettledStep]? = nil
        /// Incremental steps an up-to-date snapshot settles, for a run with a cache that
        /// decides the others (some files the snapshot looked at changed): each is settled
        /// before the run, without being decided, if what it waits for is settled too.
        var presettled: [String: SettledStep] = [:]
        /// How many steps the run must be able to build as it reaches them for it to do so
        /// (``DeferredSteps``): below it, every step is built before the run.
        var deferringFrom = DeferredSteps.worthwhileCount

        /// Options with procflow's defaults: as many steps at once as cores, a 5 s grace period, a
        /// 16 MiB capture limit, procflow's own environment.
        public init(
            maxConcurrent: Int = CoreCount.available,
            failFast: Bool = false,
            gracePeriod: TimeInterval = 5, captureLimit: Int = 16 << 20,
            environment: [String: String] = ProcessInfo.processInfo.environment,
            executable: String = WorkflowRunner.currentExecutable,
            ownsDescendants: Bool = false, cache: StepCache? = nil, force: Bool = false,
            explain: Bool = false
        ) {
            self.maxConcurrent = maxConcurrent
            self.failFast = failFast
            self.gracePeriod = gracePeriod
            self.captureLimit = captureLimit
            self.environment = environment
            self.executable = executable
            self.ownsDescendants = ownsDescendants
            self.cache = cache
            self.force = force
            self.explain = explain
        }
    }
}

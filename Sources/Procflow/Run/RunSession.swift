import Foundation

/// What a `procflow run` does with a loaded workflow, whoever asks (the command, or a watch
/// running it again): opens the state, runs the workflow with the reporters given, and saves
/// what the run learnt.
struct RunSession: Sendable {
    /// How runs go, as the command line says.
    struct Settings: Sendable {
        /// `--max-concurrent`; the workflow's `maxConcurrency`, else the core count, if `nil`.
        var maxConcurrent: Int?
        var failFast = false
        var gracePeriod: TimeInterval?
        var captureLimit: Int?
        var force = false
        /// Neither read nor write the state.
        var noCache = false
        var explain = false
        /// Where the state is kept.
        var stateDirectory: StateDirectory
        /// procflow's own environment.
        var environment: [String: String]
        /// The remote cache shared with other machines, if any.
        var remote: RemoteCacheSettings?
        /// `--executor` and `--max-jobs`.
        var executor: String? = nil
        var maxJobs: Int? = nil
        /// Whether commands share a jobserver (not with `--no-jobserver`).
        var jobserver = true
    }

    /// How long a run waits for its uploads to the remote cache once it has ended.
    static let uploadWait: TimeInterval = 60

    let settings: Settings

    /// The state of `workflow`'s incremental steps, unless `--no-cache` or no step is
    /// incremental, or the state directory must not be used; `warn` gets what reading it
    /// found wrong. The `cacheKey` commands of `starting`'s steps (the workflow a run of
    /// `workflow` that comes next will run, perhaps restricted to its targets) are started
    /// first, to run while the state is read: only for such a run, and only one (a result
    /// started ahead stands until a run takes it).
    func openCache(
        for workflow: Workflow, startingKeyCommandsOf starting: Workflow? = nil,
        warn: (String) -> Void
    ) -> StepCache? {
        guard !settings.noCache else { return nil }
        var ids: Set<String> = []
        var forEachIDs: Set<String> = []
        var incremental = false
        workflow.forEachStep { nested in
            incremental = incremental || nested.step.caching.isIncremental
            ids.insert(nested.step.id)
            if nested.step.forEach != nil { forEachIDs.insert(nested.step.id) }
        }
        guard incremental else { return nil }
        if let refusal = settings.stateDirectory.refusal() {
            warn("\(refusal); every step runs")
            return nil
        }
        let root = WorkflowRunner.directory(of: workflow)
        if let starting {
            IncrementalStep.Context.startKeyCommands(
                of: starting, directory: root, environment: settings.environment)
        }
        let remote = settings.remote.map { RemoteCache(settings: $0, root: root) }
        let cache = StepCache(
            directory: settings.stateDirectory, workflowFile: workflow.path, stepIDs: ids,
            forEachIDs: forEachIDs, remote: remote)
        for warning in cache.warnings { warn(warning) }
        return cache
    }

    /// Whether a shell step of `workflow` may run elsewhere than on this machine.
    private func submitsJobs(_ workflow: Workflow) -> Bool {
        let fallback = workflow.defaultExecutor(override: settings.executor)
        var elsewhere = false
        workflow.forEachStep { nested in
            let name = nested.step.executor(default: fallback)
            elsewhere = elsewhere || (name != nil && name != "local")
        }
        return elsewhere
    }

    /// How many steps run at once for `workflow`: `--max-concurrent`, its `maxConcurrency`,
    /// else the core count (read only then: it reads cgroup files).
    func concurrency(for workflow: Workflow) -> Int {
        settings.maxConcurrent ?? workflow.maxConcurrency
            ?? CoreCount.available
    }

    /// Runs `workflow` with `cache` (or with its incremental steps settled by `snapshot`:
    /// ``UpToDateSnapshot/settledSteps``; some of them, the cache deciding the others, if it
    /// does not settle every one), reporting to `reporters` and calling `started` with the runner first; then
    /// calls `ended` with the summary, saves what the cache learnt, handing `warn` what could
    /// not be written, and waits for the uploads to a remote cache (not after an interrupt),
    /// handing `note` what the remote did.
    func execute(
        _ workflow: Workflow, cache: StepCache?, settledBy snapshot: UpToDateSnapshot? = nil,
        reporters: [any Reporter],
        started: (WorkflowRunner) -> Void, ended: (RunSummary) -> Void = { _ in },
        warn: (String) -> Void, note: (String) -> Void
    ) -> (runner: WorkflowRunner, summary: RunSummary) {
        var options = WorkflowRunner.Options(
            maxConcurrent: concurrency(for: workflow), environment: settings.environment,
            ownsDescendants: true)
        if let gracePeriod = settings.gracePeriod { options.gracePeriod = gracePeriod }
        if let captureLimit = settings.captureLimit { options.captureLimit = captureLimit }
        options.failFast = settings.failFast
        options.force = settings.force
        options.explain = settings.explain
        options.cache = cache
        let settled = snapshot?.settledSteps.map { steps in
            Dictionary(
                steps.map { ($0.id, SettledStep(value: $0.value, note: nil)) },
                uniquingKeysWith: { first, _ in first })
        }
        if snapshot?.settlesEveryIncrementalStep == true {
            options.settledBySnapshot = settled
        } else {
            options.presettled = settled ?? [:]
        }
        options.executor = settings.executor
        if let maxJobs = settings.maxJobs { options.maxJobs = maxJobs }
        options.jobserver = settings.jobserver
        // As make and ninja do, an explicit -j makes a pool of its own.
        if settings.maxConcurrent == nil {
            options.jobserverToJoin = Jobserver.fifo(namedIn: settings.environment["MAKEFLAGS"])
        }
        options.jobDirectory = settings.stateDirectory.path + "/jobs"
        if submitsJobs(workflow) {
            // Job files hold commands' environments: the state directory must be private.
            if settings.stateDirectory.refusal() != nil {
                let home = settings.environment["HOME"] ?? NSHomeDirectory()
                options.jobDirectory = home + "/.cache/procflow/jobs"
            } else {
                do { try settings.stateDirectory.prepare() } catch { warn(error.message) }
            }
        }
        let runner = WorkflowRunner(workflow: workflow, options: options, reporters: reporters)
        started(runner)
        let summary = runner.run()
        ended(summary)
        runner.executorNotes.forEach(note)
        for warning in (cache?.takeProblems() ?? []) + [cache?.save()].compactMap({ $0 }) {
            warn(warning)
        }
        if let remote = cache?.remote {
            let interrupted = if case .interrupted = summary.result { true } else { false }
            let (warnings, line) = remote.finish(waitingUpTo: interrupted ? 0 : Self.uploadWait)
            warnings.forEach(warn)
            note(line)
        }
        return (runner, summary)
    }
}

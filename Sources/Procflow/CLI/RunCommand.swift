import Foundation
import ProcedureKit

/// `procflow run FILE`: runs a workflow.
struct RunCommand: ParsableCommand {
    enum Option: String, CommandOption {
        case maxConcurrent = "max-concurrent"
        case failFast = "fail-fast"
        case dryRun = "dry-run"
        case variable = "var"
        case only
        case events
        case output
        case gracePeriod = "grace-period"
        case captureLimit = "capture-limit"
        case force
        case noCache = "no-cache"
        case explain
        case stateDir = "state-dir"
        case junit
        case trace
        case html
        case summary
        case watch
        case verbose
        case remoteCache = "remote-cache"
        case remoteCacheMode = "remote-cache-mode"
        case remoteCacheHeader = "remote-cache-header"
        case remoteCacheTimeout = "remote-cache-timeout"
        case executor
        case maxJobs = "max-jobs"
        case noJobserver = "no-jobserver"
        case file

        /// The report the option asks for, if it is a report's: the one of the same name.
        var report: ReportFormat? { ReportFormat(rawValue: rawValue) }

        var spec: OptionSpec {
            switch self {
            case .file:
                return WorkflowArguments.fileOption
            case .maxConcurrent:
                return .value(
                    rawValue, "n",
                    help:
                        "How many steps run at once in the whole run; maxConcurrency, else the core count, by default."
                ).short("j")
            case .failFast:
                return .flag(
                    rawValue,
                    help: "After the first failure, cancel every other step but always ones.")
            case .dryRun:
                return .flag(
                    rawValue,
                    help:
                        "Print the plan in order, with which steps would run and which are up to date, and run nothing."
                ).short("n")
            case .force:
                return .flag(
                    rawValue, help: "Run every step, up to date or not, and remember the runs.")
            case .noCache:
                return .flag(
                    rawValue,
                    help: "Run every step and neither read nor write the state directory.")
            case .explain:
                return .flag(rawValue, help: "Say why each step runs.")
            case .stateDir:
                return StateDirectoryOption.spec
            case .variable:
                return WorkflowArguments.variableOption
            case .only:
                return .value(
                    rawValue, "id",
                    help: "Run only this procedure and what it needs (as a target does).")
            case .events:
                return .value(
                    rawValue, "format", help: "Print events as JSON lines instead of text.",
                    choices: ["json"])
            case .output:
                return .value(
                    rawValue, "mode",
                    help:
                        "How to print step output: prefixed lines as they come, or grouped blocks when each step ends (for CI).",
                    choices: OutputMode.textModes.map(\.rawValue))
            case .gracePeriod:
                return .value(
                    rawValue, "seconds",
                    help: "How long commands get between SIGTERM and SIGKILL; 5 by default.")
            case .captureLimit:
                return .value(
                    rawValue, "MiB",
                    help:
                        "The most stdout kept for a step's text or JSON output; past it the step fails. 16 by default."
                )
            case .verbose:
                return .flag(
                    rawValue,
                    help:
                        "Print every step's line and the summary table even when no step had anything to do (one line otherwise)."
                ).short("v")
            case .watch:
                return .flag(
                    rawValue,
                    help:
                        "After the run, watch the workflow's files and the steps' sources; on a change, run again what it affects. Ctrl-C ends it."
                )
            case .junit, .trace, .html, .summary:
                return .value(rawValue, "file", help: report?.help ?? "")
            case .remoteCache:
                return .value(
                    rawValue, "url",
                    help:
                        "A cache shared with other machines, over Bazel's HTTP cache protocol; also PROCFLOW_REMOTE_CACHE."
                )
            case .remoteCacheMode:
                return .value(
                    rawValue, "mode",
                    help:
                        "read: take others' results, never upload; readwrite (the default): upload too. Also PROCFLOW_REMOTE_CACHE_MODE.",
                    choices: RemoteCacheSettings.Mode.allCases.map(\.rawValue))
            case .remoteCacheHeader:
                return .value(
                    rawValue, "'NAME: VALUE'",
                    help:
                        "A header sent to the remote cache (repeatable); also PROCFLOW_REMOTE_CACHE_HEADER, one per line. Never printed."
                )
            case .executor:
                return .value(
                    rawValue, "name",
                    help:
                        "Where shell steps run that do not say (their own or a group's executor): local (this machine) or slurm (as Slurm jobs); the workflow's executor, else local, by default.",
                    choices: CommandExecutors.names)
            case .noJobserver:
                return .flag(
                    rawValue,
                    help:
                        "Hand commands no jobserver: a make -j, ninja or cargo they run counts its own jobs apart from --max-concurrent."
                )
            case .maxJobs:
                return .value(
                    rawValue, "n",
                    help:
                        "How many jobs may be submitted to Slurm and not yet over at once; 100 by default."
                )
            case .remoteCacheTimeout:
                return .value(
                    rawValue, "seconds",
                    help:
                        "How long the remote cache may take to connect, or stay silent in a transfer, before the run goes on without it; 30 by default."
                )
            }
        }
    }

    /// How the run is printed.
    enum OutputMode: String {
        /// Prefixed lines as they come.
        case prefixed
        /// One block per step when it ends.
        case grouped
        /// NDJSON events.
        case events

        /// The modes `--output` names.
        static let textModes: [OutputMode] = [.prefixed, .grouped]
    }

    static let name = "run"
    static let abstract = "Run a workflow."
    static let discussion: String? = """
        Steps run as soon as what they need has finished. A failed step's dependents are
        skipped; independent steps keep running unless --fail-fast. Exit status: 0 if every
        step succeeded or was skipped by a condition, 1 if any failed, 2 for an invalid
        workflow or command line, 130 after SIGINT (Ctrl-C) and 143 after SIGTERM. A first
        Ctrl-C forwards the signal to every running command, waits the grace period, then
        kills what is left; a second kills at once.

        With --watch, procflow runs, then watches the workflow's files and the steps'
        sources (with inotify) and, once changes settle, runs again the steps whose sources
        changed and every step downstream of them; an edit to a workflow file loads it again
        and runs everything. A change that affects a running step cancels the run first (the
        usual teardown) and the next run takes up what it left. Ctrl-C ends the watch, with
        exit status 130.
        """
    static let arguments = [
        WorkflowArguments.fileArgument,
        CommandDescription.Argument(
            name: "id",
            help:
                "Procedures to run, with what they need (their dependencies, wired sources and groups); all by default.",
            isVariadic: true),
    ]

    let workflow: WorkflowArguments
    let maxConcurrent: Int?
    let failFast: Bool
    let dryRun: Bool
    /// The procedures named to run, in order; empty for all.
    let targets: [String]
    /// `--only`'s procedure, a target too.
    let only: String?
    /// `--output` or `--events`, when given.
    let chosenOutput: OutputMode?
    let gracePeriod: TimeInterval?
    /// In bytes.
    let captureLimit: Int?
    let force: Bool
    let noCache: Bool
    let explain: Bool
    let stateDirectoryPath: String?
    /// The reports to write at the end, and where.
    let reports: [(format: ReportFormat, path: String)]
    /// Whether to watch for changes after the run and run again.
    let watch: Bool
    /// Whether a run with nothing to do prints every line and the table.
    let verbose: Bool
    /// `--remote-cache`, `--remote-cache-mode` and `--remote-cache-header`, with the
    /// environment's defaults filled in when the command runs.
    let remoteCache: (url: String?, mode: String?, headers: [String], timeout: TimeInterval)
    /// `--executor`, checked against the executors' names by the parser.
    let executor: String?
    let maxJobs: Int?
    /// `--no-jobserver`: the run's commands share no jobserver.
    let noJobserver: Bool

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        let (file, targets) = try WorkflowArguments.file(
            positionals: arguments.positionals, option: arguments.value(.file), takesTargets: true)
        workflow = try WorkflowArguments(file: file, variables: arguments.values(.variable))
        maxConcurrent = try arguments.value(.maxConcurrent).map { (text) throws(ArgumentError) in
            guard let count = Int(text), count >= 1 else {
                throw .invalidValue(
                    text, for: Option.maxConcurrent.spec, expected: "a whole number of at least 1")
            }
            return count
        }
        executor = arguments.value(.executor)
        maxJobs = try arguments.value(.maxJobs).map { (text) throws(ArgumentError) in
            guard let count = Int(text), (1...100_000).contains(count) else {
                throw .invalidValue(
                    text, for: Option.maxJobs.spec, expected: "a whole number from 1 to 100000")
            }
            return count
        }
        gracePeriod = try arguments.value(.gracePeriod).map { (text) throws(ArgumentError) in
            guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                throw .invalidValue(
                    text, for: Option.gracePeriod.spec, expected: "a number of seconds")
            }
            return seconds
        }
        captureLimit = try arguments.value(.captureLimit).map { (text) throws(ArgumentError) in
            guard let mebibytes = Double(text), mebibytes > 0, mebibytes <= 1_048_576 else {
                throw .invalidValue(
                    text, for: Option.captureLimit.spec, expected: "a positive number")
            }
            return Int(mebibytes * 1_048_576)
        }
        if arguments.has(.events), arguments.has(.output) {
            throw ArgumentError(
                message:
                    "--events and --output cannot be used together: --events json prints events instead of text output"
            )
        }
        // The parser has checked both values against their choices.
        chosenOutput =
            arguments.has(.events)
            ? .events : arguments.value(.output).flatMap(OutputMode.init(rawValue:))
        failFast = arguments.isSet(.failFast)
        dryRun = arguments.isSet(.dryRun)
        self.targets = targets
        only = arguments.value(.only)
        force = arguments.isSet(.force)
        noCache = arguments.isSet(.noCache)
        noJobserver = arguments.isSet(.noJobserver)
        explain = arguments.isSet(.explain)
        stateDirectoryPath = arguments.value(.stateDir)
        watch = arguments.isSet(.watch)
        verbose = arguments.isSet(.verbose)
        let remoteTimeout = try arguments.value(.remoteCacheTimeout).map {
            (text) throws(ArgumentError) in
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
                throw .invalidValue(
                    text, for: Option.remoteCacheTimeout.spec, expected: "a number of seconds")
            }
            return seconds
        }
        remoteCache = (
            arguments.value(.remoteCache), arguments.value(.remoteCacheMode),
            arguments.values(.remoteCacheHeader), remoteTimeout ?? 30
        )
        if watch, dryRun {
            throw ArgumentError(
                message: "--watch cannot be used with --dry-run: a dry run runs nothing to watch")
        }
        if noCache, force || stateDirectoryPath != nil {
            throw ArgumentError(
                message:
                    "--no-cache cannot be used with \(force ? "--force" : "--state-dir"): --no-cache neither reads nor writes the state"
            )
        }
        reports = Option.allCases.compactMap { option in
            guard let format = option.report, let path = arguments.value(option) else { return nil }
            return (format, path)
        }
    }

    func run(console: Console) -> Int32 {
        if watch { return runWatching(console: console) }
        // The check's cacheKey commands that no run took: none outlives procflow.
        defer { KeyCommandsAhead.waitForAll() }
        var check = UpToDateCheck(
            workflowFile: workflow.file, overrides: workflow.variables, targets: chosenTargets,
            directory: stateDirectory(),
            applies: !noCache && !force && !dryRun && reports.isEmpty
                && console.environment["GITHUB_STEP_SUMMARY"] == nil)
        let snapshot = check.current()
        if let snapshot, snapshot.settledSteps == nil {
            // Everything at once: nothing runs between the lines.
            let text = Locked([UInt8]())
            var buffered = console
            buffered.write = { output in
                text.withLock { bytes in
                    // In place: a line of each step of a large workflow comes through here.
                    if output.utf8.withContiguousStorageIfAvailable({
                        bytes.append(contentsOf: $0)
                    }) == nil {
                        bytes.append(contentsOf: output.utf8)
                    }
                }
            }
            _ = UpToDateReport.run(
                snapshot, reporters: [reporter(console: buffered, graph: nil, concurrency: 1)])
            console.write(String(decoding: text.withLock { $0 }, as: UTF8.self))
            // The process ends next: the snapshot (every step and file it names) is left for
            // the system to reclaim (its teardown was a tenth of a no-op of 10,000 steps).
            LeftToExit.keep(snapshot)
            return CommandLineTool.ExitStatus.success
        }
        check.noteReading()
        // Something to do: threads will build and let go of steps.
        MallocArenas.keepToLimit(environment: console.environment)
        // A dry run leaves the state directory as it is.
        let plans = noCache || dryRun ? nil : usableStateDirectory()
        guard let (loaded, bytes) = workflow.loadWithBytes(console: console, plans: plans) else {
            return CommandLineTool.ExitStatus.usage
        }
        // Loaded, checked and its plan written: nothing asks where in the file a step is now,
        // and the snapshot needs only the digest of a large file's bytes.
        let read = WorkflowRead(bytes)
        loaded.sources?.letGoOfLargeFiles(over: WorkflowRead.largestHeld)
        // The included and dotenv files as they were read: a change to one after the
        // snapshot must make the next run load the workflow.
        let loadedAt = FileSystem.now()
        let otherFiles = loaded.files.dropFirst().map { ($0, FileSystem.status($0)) }
        guard let session = session(console: console) else {
            return CommandLineTool.ExitStatus.usage
        }
        let targetProblem = unknownTarget(in: loaded, chosenTargets)
        let workflow =
            chosenTargets.isEmpty || targetProblem != nil
            ? loaded : loaded.restricted(to: chosenTargets)
        // The cacheKey commands of the steps that run start while the state is read, unless
        // no run follows (a dry run, an unknown target) to take their results.
        func openCache() -> StepCache? {
            session.openCache(
                for: loaded, startingKeyCommandsOf: dryRun || targetProblem != nil ? nil : workflow,
                warn: warn(console))
        }
        // Any run but one that a snapshot settles every incremental step of reads the state:
        // read first, while the cacheKey commands the check started run on.
        let readsStateFirst = snapshot?.settlesEveryIncrementalStep != true
        var cache = readsStateFirst ? openCache() : nil
        // The snapshot of the incremental steps alone: they are up to date, the others run,
        // without the cache (none of them is incremental), or, if it settles some (a file
        // changed: the edit loop), with the cache deciding the others. Not for --explain, whose
        // reasons come from the cache, nor with a remote cache, whose answers the run
        // reports. Its cacheKey commands ran while the workflow loaded.
        let usableSnapshot = snapshot.flatMap { snapshot in
            explain || session.settings.remote != nil
                || !snapshot.isOf(workflow: read, otherFiles: otherFiles)
                || !snapshot.keyCommandsGiveTheSame() ? nil : snapshot
        }
        let settledBySnapshot =
            usableSnapshot?.settlesEveryIncrementalStep == true ? usableSnapshot : nil
        // A snapshot that settled every step, but cannot be used: the state after all.
        if !readsStateFirst, settledBySnapshot == nil { cache = openCache() }
        // Otherwise the run may change what the snapshot says.
        if settledBySnapshot == nil { check.invalidate(with: cache) }
        if let problem = targetProblem { return Self.usageError(problem, console: console) }
        if dryRun {
            let plan = Plan(workflow, cache: force ? nil : cache)
            let console = console.masking(Self.masker(of: loaded, console: console))
            console.write(output(on: console) == .events ? plan.json : plan.text)
            return CommandLineTool.ExitStatus.success
        }
        let signals = Locked<SignalForwarding?>(nil)
        let (runner, summary, reportsFailed) = execute(
            workflow, session: session, cache: cache, settledBy: usableSnapshot,
            console: console,
            started: { runner in signals.withLock { $0 = SignalForwarding(runner: runner) } })
        signals.withLock { $0?.stop() }
        if settledBySnapshot == nil {
            check.record(
                after: runner, cache: cache, workflowName: workflow.name, read: read,
                otherFiles: otherFiles, loadedAt: loadedAt, previous: usableSnapshot)
        }
        // The process ends next: the workflow, the run's records and procedures and the
        // cache's index are left for the system to reclaim (their teardown was a fourteenth of
        // a run that decided 10,000 steps).
        LeftToExit.keep((loaded, workflow, runner, summary, session, cache, snapshot))
        return Self.exitStatus(of: summary, reportsFailed: reportsFailed)
    }

    /// `--watch`: runs, then runs again what each change affects, until a signal.
    private func runWatching(console: Console) -> Int32 {
        MallocArenas.keepToLimit(environment: console.environment)
        guard let session = session(console: console) else {
            return CommandLineTool.ExitStatus.usage
        }
        let command = self
        let host = WatchSession.Host(
            load: { command.workflow.load(console: console) },
            targetProblem: { command.unknownTarget(in: $0, command.chosenTargets) },
            execute: { workflow, cache, started in
                command.execute(
                    workflow, session: session, cache: cache, console: console, started: started
                ).summary
            },
            notice: { console.writeError($0 + "\n") })
        let ownFiles =
            reports.map(\.path) + [console.environment["GITHUB_STEP_SUMMARY"]].compactMap { $0 }
        let watch = WatchSession(
            file: workflow.file, targets: chosenTargets, session: session, ownFiles: ownFiles,
            host: host)
        switch watch.run() {
        case .signaled(let signal): return 128 + signal
        case .missingWorkflow:
            _ = workflow.load(console: console)
            return CommandLineTool.ExitStatus.usage
        case .unknownTarget(let problem): return Self.usageError(problem, console: console)
        case .watchFailed(let reason):
            console.writeError("error: \(reason)\n")
            return CommandLineTool.ExitStatus.failure
        }
    }

    /// How runs of this command go; `nil`, with the error printed, if the remote cache's
    /// settings are not usable.
    func session(console: Console) -> RunSession? {
        var remote: RemoteCacheSettings?
        let environment = console.environment
        if let url = remoteCache.url ?? environment["PROCFLOW_REMOTE_CACHE"], !url.isEmpty {
            let mode = remoteCache.mode ?? environment["PROCFLOW_REMOTE_CACHE_MODE"] ?? "readwrite"
            let headers =
                remoteCache.headers
                + (environment["PROCFLOW_REMOTE_CACHE_HEADER"]?.split(separator: "\n").map(
                    String.init)
                    ?? [])
            guard let parsedMode = RemoteCacheSettings.Mode(rawValue: mode) else {
                console.writeError(
                    "error: PROCFLOW_REMOTE_CACHE_MODE is \(mode.escapingControlCharacters): expected read or readwrite\n"
                )
                return nil
            }
            do {
                remote = try RemoteCacheSettings(
                    url: url, mode: parsedMode, headers: headers, timeout: remoteCache.timeout)
            } catch {
                console.writeError("error: \(error.message)\n")
                return nil
            }
        }
        return RunSession(
            settings: .init(
                maxConcurrent: maxConcurrent, failFast: failFast, gracePeriod: gracePeriod,
                captureLimit: captureLimit, force: force, noCache: noCache, explain: explain,
                stateDirectory: stateDirectory(), environment: environment, remote: remote,
                executor: executor, maxJobs: maxJobs, jobserver: !noJobserver))
    }

    /// Prints a warning on `console`'s standard error.
    func warn(_ console: Console) -> (String) -> Void {
        { warning in console.writeError("warning: \(warning.escapingControlCharacters)\n") }
    }

    /// The procedures named on the command line (`--only`'s too), in order; empty for all.
    var chosenTargets: [String] { targets + (only.map { [$0] } ?? []) }

    /// The usage error for the first of `targets` that is not a step of `workflow`, if any.
    func unknownTarget(in workflow: Workflow, _ targets: [String]) -> String? {
        guard !targets.isEmpty else { return nil }
        let ids = workflow.allSteps.map(\.id)
        let known = Set(ids)
        for target in targets where !known.contains(target) {
            let named = target == only && !self.targets.contains(target) ? "--only \(target)" : nil
            switch workflow.resolveTarget(target) {
            case .step, .instance: continue
            case .instanceOfWiredItems(let step):
                return
                    "\(named ?? "\"\(target)\"") names an instance of \(step), whose items come from another step as the run goes: run \(step)"
            case .unknown:
                let hint = Suggestion.hint(for: target, in: ids)
                return named.map { "\($0): no such procedure\(hint)" }
                    ?? "no procedure \"\(target)\" in \(workflow.path)\(hint)"
            }
        }
        return nil
    }

    /// Runs `workflow` through `session`, calling `started` with its runner first, with the
    /// reporters the command line asks for; prints what could not be written. Returns the
    /// runner, how the run went, and whether a report could not be written.
    func execute(
        _ workflow: Workflow, session: RunSession, cache: StepCache?,
        settledBy snapshot: UpToDateSnapshot? = nil, console: Console,
        started: (WorkflowRunner) -> Void
    ) -> (runner: WorkflowRunner, summary: RunSummary, reportsFailed: Bool) {
        // Made once, and only if something needs it: reports, the live panel's estimate.
        var madeGraph: WorkflowGraph?
        func graph() -> WorkflowGraph {
            if let madeGraph { return madeGraph }
            let graph = WorkflowGraph(workflow)
            madeGraph = graph
            return graph
        }
        let masker = Self.masker(of: workflow, console: console)
        if !masker.isEmpty, console.environment["GITHUB_ACTIONS"] == "true" {
            // GitHub masks them in its log too, from here on. It reads commands on both
            // streams: standard error keeps --events json's lines all JSON.
            let commands = SecretMasker.githubMaskCommands(
                for: workflow.secretValues(in: console.environment))
            if output(on: console) == .events {
                console.writeError(commands)
            } else {
                console.write(commands)
            }
        }
        let console = console.masking(masker)
        let files = ReportFiles(
            graph: graph(), files: reports, environment: console.environment, masker: masker)
        let durations = durationsFile(of: workflow)
        let main = reporter(
            console: console, graph: graph(), concurrency: session.concurrency(for: workflow),
            history: KnownStepDurations(durations: durations?.load() ?? [:]))
        // The durations are kept while the cache saves its index: another file, written on
        // another thread.
        let keeping = DispatchGroup()
        let durationsProblem = Locked<String?>(nil)
        let (runner, summary) = session.execute(
            workflow, cache: cache, settledBy: snapshot,
            reporters: [main] + (files.isNeeded ? [files] : []),
            started: started,
            ended: { summary in
                guard let durations else { return }
                keeping.enter()
                WorkerThreads.shared.run {
                    defer { keeping.leave() }
                    do throws(CacheProblem) {
                        try Self.keep(durations, of: summary, outside: workflow.stepsLeftOut)
                    } catch {
                        durationsProblem.withLock { $0 = error.message }
                    }
                }
            },
            warn: warn(console),
            note: { console.writeError("procflow: \($0)\n") })
        for failure in files.failures { console.writeError("error: \(failure)\n") }
        keeping.wait()
        if let problem = durationsProblem.withLock({ $0 }) {
            warn(console)("the steps' durations were not kept: \(problem)")
        }
        return (runner, summary, !files.failures.isEmpty)
    }

    /// Keeps in `durations` how long the steps of `summary` that succeeded took.
    ///
    /// - Throws: a ``CacheProblem`` if the file cannot be written.
    private static func keep(
        _ durations: StepDurationsFile, of summary: RunSummary, outside: Set<String>
    ) throws(CacheProblem) {
        let first = try durations.recordFirst { body in
            for row in summary.rows where row.status == .succeeded {
                if let duration = row.duration { body(row.id, duration) }
            }
        }
        if first { return }
        // One table, its room made once: it is made at the end of the run, where its memory
        // is highest (a dictionary of durations and a set of ids took 105 bytes a step).
        var run = StepDurationsFile.RunDurations()
        run.reserveCapacity(summary.rows.count)
        var succeeded = false
        for row in summary.rows {
            let duration = row.status == .succeeded ? row.duration : nil
            succeeded = succeeded || duration != nil
            run[row.id] = .some(duration)
        }
        guard succeeded else { return }
        try durations.record(run, outside: outside)
    }

    /// Where the durations of `workflow`'s steps are kept between runs, for the live panel's
    /// estimate; `nil` with `--no-cache` (no state directory is read or written) or a state
    /// directory not to be used.
    func durationsFile(of workflow: Workflow) -> StepDurationsFile? {
        guard !noCache, let directory = usableStateDirectory() else { return nil }
        return StepDurationsFile(directory: directory, workflowFile: workflow.path)
    }

    /// The state directory, unless it is not to be used (``StateDirectory/refusal()``).
    func usableStateDirectory() -> StateDirectory? {
        let directory = stateDirectory()
        return directory.refusal() == nil ? directory : nil
    }

    /// How the run prints on `console`: as asked; else, in CI (GitHub Actions, GitLab CI) with
    /// standard output not a terminal, grouped blocks, which keep a log readable; else
    /// prefixed lines.
    func output(on console: Console) -> OutputMode {
        if let chosenOutput { return chosenOutput }
        let environment = console.environment
        let inCI = environment["GITHUB_ACTIONS"] == "true" || environment["GITLAB_CI"] == "true"
        return inCI && !console.outputIsTerminal ? .grouped : .prefixed
    }

    /// What masks `workflow`'s secrets in what the run writes: their values in the file and in
    /// the environment the run is given.
    static func masker(of workflow: Workflow, console: Console) -> SecretMasker {
        SecretMasker(values: workflow.secretValues(in: console.environment))
    }

    /// The exit status of a run that went as `summary` says.
    static func exitStatus(of summary: RunSummary, reportsFailed: Bool) -> Int32 {
        switch summary.result {
        case .succeeded:
            // A report asked for and not written fails a run that went well.
            return reportsFailed
                ? CommandLineTool.ExitStatus.failure : CommandLineTool.ExitStatus.success
        case .failed: return CommandLineTool.ExitStatus.failure
        case .interrupted(let signal): return 128 + signal
        }
    }

    /// The state directory: `--state-dir`, else `.procflow` beside the workflow.
    func stateDirectory() -> StateDirectory {
        stateDirectoryPath.map { StateDirectory(path: resolve($0, in: ".")) }
            ?? .beside(workflow: workflow.file)
    }

    /// The reporter `--output` and `--events` ask for; the terminal's estimates the time left
    /// along `graph`, when there is one.
    private func reporter(
        console: Console, graph: @autoclosure () -> WorkflowGraph?, concurrency: Int,
        history: @autoclosure () -> any StepDurations = NoStepDurations()
    ) -> any Reporter {
        switch output(on: console) {
        case .prefixed:
            return TerminalReporter(
                console: console,
                estimate: graph().map {
                    ProgressEstimate(graph: $0, concurrency: concurrency, history: history())
                },
                verbose: verbose)
        case .grouped: return GroupedReporter(console: console)
        case .events: return JSONEventReporter(console: console)
        }
    }
}

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

        /// The report the option asks for, if it is a report's: the one of the same name.
        var report: ReportFormat? { ReportFormat(rawValue: rawValue) }

        var spec: OptionSpec {
            switch self {
            case .maxConcurrent:
                return .value(
                    rawValue, "n",
                    help:
                        "How many steps run at once in the whole run; maxConcurrency, else the core count, by default."
                )
            case .failFast:
                return .flag(
                    rawValue,
                    help: "After the first failure, cancel every other step but always ones.")
            case .dryRun:
                return .flag(
                    rawValue,
                    help:
                        "Print the plan in order, with which steps would run and which are up to date, and run nothing."
                )
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
            case .watch:
                return .flag(
                    rawValue,
                    help:
                        "After the run, watch the workflow's files and the steps' sources; on a change, run again what it affects. Ctrl-C ends it."
                )
            case .junit, .trace, .html, .summary:
                return .value(rawValue, "file", help: report?.help ?? "")
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
    let output: OutputMode
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

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        workflow = try WorkflowArguments(
            file: arguments.positionals[0], variables: arguments.values(.variable))
        maxConcurrent = try arguments.value(.maxConcurrent).map { (text) throws(ArgumentError) in
            guard let count = Int(text), count >= 1 else {
                throw .invalidValue(
                    text, for: Option.maxConcurrent.spec, expected: "a whole number of at least 1")
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
        output =
            arguments.has(.events)
            ? .events : arguments.value(.output).flatMap(OutputMode.init(rawValue:)) ?? .prefixed
        failFast = arguments.isSet(.failFast)
        dryRun = arguments.isSet(.dryRun)
        targets = Array(arguments.positionals.dropFirst())
        only = arguments.value(.only)
        force = arguments.isSet(.force)
        noCache = arguments.isSet(.noCache)
        explain = arguments.isSet(.explain)
        stateDirectoryPath = arguments.value(.stateDir)
        watch = arguments.isSet(.watch)
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
        if watch { return WatchSession(command: self, console: console).run() }
        let snapshotKey = UpToDateSnapshot.Key(
            workflow: resolve(workflow.file, in: "."),
            overrides: workflow.variables.map { "\($0.name)=\($0.value)" },
            only: chosenTargets.isEmpty ? nil : chosenTargets.joined(separator: " "))
        // A run that finds everything up to date answers from a snapshot without loading the
        // workflow; not when it must write reports of the run.
        let usesSnapshot =
            !noCache && !force && !dryRun && reports.isEmpty
            && console.environment["GITHUB_STEP_SUMMARY"] == nil
        if usesSnapshot, stateDirectory().refusal() == nil,
            let snapshot = UpToDateSnapshot.current(in: stateDirectory(), for: snapshotKey)
        {
            // Everything at once: nothing runs between the lines.
            let text = Locked("")
            var buffered = console
            buffered.write = { output in text.withLock { $0 += output } }
            _ = UpToDateReport.run(
                snapshot, reporters: [reporter(console: buffered, graph: nil, concurrency: 1)])
            console.write(text.withLock { $0 })
            return CommandLineTool.ExitStatus.success
        }
        let statusBeforeReading = (FileSystem.status(snapshotKey.workflow), FileSystem.now())
        guard let (loaded, bytes) = workflow.loadWithBytes(console: console) else {
            return CommandLineTool.ExitStatus.usage
        }
        // The included and dotenv files as they were read: a change to one after the
        // snapshot must make the next run load the workflow.
        let loadedAt = FileSystem.now()
        let otherFiles = loaded.files.dropFirst().map { ($0, FileSystem.status($0)) }
        let cache = openCache(for: loaded, console: console)
        if usesSnapshot, let cache {
            UpToDateSnapshot.remove(in: cache.directory, for: snapshotKey.workflow)
        }
        if let problem = unknownTarget(in: loaded, chosenTargets) {
            return Self.usageError(problem, console: console)
        }
        let workflow = chosenTargets.isEmpty ? loaded : loaded.restricted(to: chosenTargets)
        if dryRun {
            let plan = Plan(workflow, cache: force ? nil : cache)
            console.write(output == .events ? plan.json : plan.text)
            return CommandLineTool.ExitStatus.success
        }
        let signals = Locked<SignalForwarding?>(nil)
        let (runner, summary, reportsFailed) = execute(
            workflow, cache: cache, console: console,
            started: { runner in signals.withLock { $0 = SignalForwarding(runner: runner) } })
        signals.withLock { $0?.stop() }
        if usesSnapshot, runner.isUpToDate, let cache,
            let snapshotFiles = cache.snapshotFiles(of: runner.incremental),
            let indexStatus = cache.indexStatus,
            otherFiles.allSatisfy({ _, status in
                status.map { $0.isSettled(at: loadedAt) }
                    ?? true
            })
        {
            let (status, seenAt) = statusBeforeReading
            let trusted = status.map { $0.isSettled(at: seenAt) }
            UpToDateSnapshot(
                key: snapshotKey, digest: SHA256.hash(bytes),
                workflowStatus: trusted == true ? status : nil, indexStatus: indexStatus,
                name: workflow.name, steps: runner.upToDateSteps,
                files: otherFiles + snapshotFiles
            ).write(in: cache.directory)
        }
        return Self.exitStatus(of: summary, reportsFailed: reportsFailed)
    }

    /// The procedures named on the command line (`--only`'s too), in order; empty for all.
    var chosenTargets: [String] { targets + (only.map { [$0] } ?? []) }

    /// The usage error for the first of `targets` that is not a step of `workflow`, if any.
    func unknownTarget(in workflow: Workflow, _ targets: [String]) -> String? {
        guard !targets.isEmpty else { return nil }
        let ids = workflow.allSteps.map(\.id)
        let known = Set(ids)
        guard let target = targets.first(where: { !known.contains($0) }) else { return nil }
        let hint = Suggestion.hint(for: target, in: ids)
        return target == only && !self.targets.contains(target)
            ? "--only \(target): no such procedure\(hint)"
            : "no procedure \"\(target)\" in \(workflow.path)\(hint)"
    }

    /// Runs `workflow`, calling `started` with its runner first, then writes the reports
    /// asked for and saves what the cache learnt; returns the runner, how the run went, and
    /// whether a report could not be written.
    func execute(
        _ workflow: Workflow, cache: StepCache?, console: Console,
        started: (WorkflowRunner) -> Void
    ) -> (runner: WorkflowRunner, summary: RunSummary, reportsFailed: Bool) {
        let graph = WorkflowGraph(workflow)
        let files = ReportFiles(graph: graph, files: reports, environment: console.environment)
        var options = runnerOptions(for: workflow, console: console)
        options.cache = cache
        let main = reporter(console: console, graph: graph, concurrency: options.maxConcurrent)
        let runner = WorkflowRunner(
            workflow: workflow, options: options,
            reporters: [main] + (files.isNeeded ? [files] : []))
        started(runner)
        let summary = runner.run()
        for failure in files.failures { console.writeError("error: \(failure)\n") }
        for warning in (cache?.takeProblems() ?? []) + [cache?.save()].compactMap({ $0 }) {
            console.writeError("warning: \(warning.escapingControlCharacters)\n")
        }
        return (runner, summary, !files.failures.isEmpty)
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

    private func runnerOptions(for workflow: Workflow, console: Console) -> WorkflowRunner.Options {
        // The processor count only when nothing else sets the limit: it reads cgroup files.
        var options = WorkflowRunner.Options(
            maxConcurrent: maxConcurrent ?? workflow.maxConcurrency
                ?? ProcessInfo.processInfo.activeProcessorCount,
            environment: console.environment, ownsDescendants: true)
        if let gracePeriod { options.gracePeriod = gracePeriod }
        if let captureLimit { options.captureLimit = captureLimit }
        options.failFast = failFast
        options.force = force
        options.explain = explain
        return options
    }

    /// The state directory: `--state-dir`, else `.procflow` beside the workflow.
    func stateDirectory() -> StateDirectory {
        stateDirectoryPath.map { StateDirectory(path: resolve($0, in: ".")) }
            ?? .beside(workflow: workflow.file)
    }

    /// The state of the workflow's incremental steps, unless `--no-cache` or no step is
    /// incremental; prints the warnings reading it gave.
    func openCache(for workflow: Workflow, console: Console) -> StepCache? {
        guard !noCache else { return nil }
        var incremental = false
        workflow.forEachStep { incremental = incremental || $0.step.caching.isIncremental }
        guard incremental else { return nil }
        if let refusal = stateDirectory().refusal() {
            console.writeError("warning: \(refusal.escapingControlCharacters); every step runs\n")
            return nil
        }
        var ids: Set<String> = []
        var forEachIDs: Set<String> = []
        workflow.forEachStep { nested in
            ids.insert(nested.step.id)
            if nested.step.forEach != nil { forEachIDs.insert(nested.step.id) }
        }
        let cache = StepCache(
            directory: stateDirectory(), workflowFile: workflow.path, stepIDs: ids,
            forEachIDs: forEachIDs)
        for warning in cache.warnings {
            console.writeError("warning: \(warning.escapingControlCharacters)\n")
        }
        return cache
    }

    /// The reporter `--output` and `--events` ask for; the terminal's estimates the time left
    /// along `graph`, when there is one.
    private func reporter(console: Console, graph: WorkflowGraph?, concurrency: Int)
        -> any Reporter
    {
        switch output {
        case .prefixed:
            // Durations of earlier runs would plug in here, as the estimate's `history`.
            return TerminalReporter(
                console: console,
                estimate: graph.map { ProgressEstimate(graph: $0, concurrency: concurrency) })
        case .grouped: return GroupedReporter(console: console)
        case .events: return JSONEventReporter(console: console)
        }
    }
}

import Dispatch
import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `procflow run FILE --watch`: runs the workflow, then, each time files it reads change,
/// runs again what the change affects (``WatchPlan``), until SIGINT or SIGTERM.
///
/// The main thread runs; the watcher's thread tells it of changes, and stops a run that a
/// change affects while one of its steps is running. A source counts as changed only when
/// its content is new: a step that rewrites a file with what it held is no change, so a run
/// does not start itself again.
final class WatchSession: @unchecked Sendable {
    // @unchecked Sendable: `host`, `session` and the settings are constants; what the
    // watcher's thread and the signal handlers share with the main thread is in `state`.

    /// What the command line gives the watch: loading, checking targets, running with its
    /// reporters, and printing.
    struct Host: Sendable {
        /// Loads the workflow, printing what is wrong with it; `nil` if it cannot be loaded.
        var load: @Sendable () -> Workflow?
        /// Why the targets cannot be run in a workflow, if they cannot.
        var targetProblem: @Sendable (Workflow) -> String?
        /// Runs a workflow with a cache, calling its argument with the runner first.
        var execute: @Sendable (Workflow, StepCache?, (WorkflowRunner) -> Void) -> RunSummary
        /// Prints a line of the watch's own on standard error.
        var notice: @Sendable (String) -> Void
    }

    /// How a watch ends.
    enum Ending: Equatable {
        /// A signal ended it.
        case signaled(Int32)
        /// There is no workflow file to watch.
        case missingWorkflow
        /// The targets are not steps of the workflow, as it was first loaded: why.
        case unknownTarget(String)
        /// The files cannot be watched: why.
        case watchFailed(String)
    }

    private struct State {
        /// Changed files not yet run for: workflow files, and sources with new content.
        var changed: [String] = []
        /// The signal that ends the watch.
        var signal: Int32?
        /// The run going on.
        var runner: WorkflowRunner?
        /// Whether a change stopped the run going on.
        var stopped = false
        /// What is watched; `nil` while the workflow cannot be loaded.
        var plan: WatchPlan?
        /// The files the workflow was last read from: while it cannot be loaded, a change to
        /// one of them (or to a JSON or dotenv file) may fix it.
        var workflowFiles: Set<String> = []
        /// The cache of the last run: its records say what each step last read.
        var cache: StepCache?
        /// The content each changed source had when it was last seen (`nil`: no file).
        var seen: [String: Digest?] = [:]
    }

    /// How long files must be left alone before their changes count.
    static let quiet: TimeInterval = 0.2

    private let host: Host
    private let session: RunSession
    /// The steps the command line names, with what they need; empty for all.
    private let targets: [String]
    /// Files the run itself writes (its reports), which are never a change.
    private let ownFiles: [String]
    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    /// The workflow file, absolute.
    private let file: String

    /// A watch of the workflow file `file` that runs `targets` (all if empty) through
    /// `session` and `host`; the run's own reports, `ownFiles`, are not watched.
    init(
        file: String, targets: [String], session: RunSession, ownFiles: [String], host: Host
    ) {
        self.file = resolve(file, in: ".")
        self.targets = targets
        self.session = session
        self.ownFiles = ownFiles
        self.host = host
    }

    /// Runs and watches until a signal, or a problem that leaves nothing to watch.
    func run() -> Ending {
        let signals = SignalForwarding(
            first: { [self] signal in
                let runner = state.withLock { state in
                    state.signal = signal
                    return state.runner
                }
                runner?.interrupt(signal: signal)
                wake.signal()
            },
            again: { [self] in state.withLock { $0.runner }?.kill() })
        defer { signals.stop() }
        var watcher: (watcher: FileWatcher, roots: [String])?
        defer { watcher?.watcher.stop() }
        var workflow: Workflow?
        var mustLoad = true
        var isFirstLoad = true
        // What the next run runs: empty for everything.
        var chosen = targets
        while true {
            if let signal = state.withLock({ $0.signal }) { return .signaled(signal) }
            if mustLoad {
                mustLoad = false
                if isFirstLoad, !FileSystem.exists(file) {
                    // Nothing to watch: the path is wrong.
                    return .missingWorkflow
                }
                workflow = host.load()
                if let loaded = workflow, let problem = host.targetProblem(loaded) {
                    if isFirstLoad { return .unknownTarget(problem) }
                    host.notice("procflow: \(problem)")
                    workflow = nil
                }
                isFirstLoad = false
                if let failure = follow(workflow, watcher: &watcher) {
                    return .watchFailed(failure)
                }
            }
            guard let loaded = workflow else {
                host.notice("procflow: waiting for the workflow to be fixed (Ctrl-C to stop)")
                waitForChange()
                mustLoad = true
                continue
            }
            let summary = runOnce(loaded, targets: chosen)
            guard let next = nextRun(after: summary) else { continue }
            switch next {
            case .load:
                mustLoad = true
                chosen = targets
            case .run(let steps):
                chosen = steps
            }
        }
    }

    /// Makes what is watched follow `workflow` (`nil` when it cannot be loaded: then what was
    /// watched still is), starting a new `watcher` when the directories to watch change;
    /// why the files cannot be watched, if they cannot.
    private func follow(
        _ workflow: Workflow?, watcher: inout (watcher: FileWatcher, roots: [String])?
    ) -> String? {
        // With targets, what they do not need is not watched.
        let watched = workflow.map { targets.isEmpty ? $0 : $0.restricted(to: targets) }
        var plan = watched.map {
            WatchPlan(
                $0, directory: WorkflowRunner.directory(of: $0),
                stateDirectory: session.settings.stateDirectory.path, ownFiles: ownFiles)
        }
        if let cache = state.withLock({ $0.cache }) {
            plan?.learn(cache.discoveredSources())
        }
        state.withLock { state in
            state.plan = plan
            // What was seen while the workflow was broken, or before it changed, is not what
            // the next run reads: the cache's records say that.
            state.seen = [:]
            if let files = plan?.workflowFiles { state.workflowFiles = files }
        }
        let roots = plan?.roots ?? watcher?.roots ?? [directory(of: file)]
        guard watcher?.roots != roots else { return nil }
        do {
            let started = try FileWatcher(roots: roots)
            started.start(quiet: Self.quiet) { [self] in noticed($0) }
            watcher?.watcher.stop()
            watcher = (started, roots)
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: - Running

    /// Runs `targets` of `workflow` (all of it if empty); returns how it went when a change
    /// stopped it, `nil` when it ended by itself.
    private func runOnce(_ workflow: Workflow, targets: [String]) -> RunSummary? {
        let cache = session.openCache(for: workflow) {
            host.notice("warning: \($0.escapingControlCharacters)")
        }
        // Changes seen while it runs are weighed against what the steps last read.
        state.withLock { $0.cache = cache }
        let selected = targets.isEmpty ? workflow : workflow.restricted(to: targets)
        let summary = host.execute(selected, cache) { [self] runner in
            let signal = state.withLock { state in
                state.runner = runner
                state.stopped = false
                return state.signal
            }
            // A signal that came while the run was being made.
            if let signal { runner.interrupt(signal: signal) }
        }
        return state.withLock { state in
            state.runner = nil
            if let cache { state.plan?.learn(cache.discoveredSources()) }
            defer { state.stopped = false }
            return state.stopped ? summary : nil
        }
    }

    /// The steps a stopped run left to do: those that did not succeed and were not up to
    /// date, a `forEach` step for its instances, and not the groups that hold them.
    static func unfinished(_ summary: RunSummary) -> [String] {
        let containers = Set(summary.rows.flatMap(\.path))
        var steps: [String] = []
        for row in summary.rows where row.status != .succeeded && row.status != .cached {
            let step = ForEach.stepID(ofInstance: row.id)
            if step == row.id, containers.contains(step) { continue }
            if !steps.contains(step) { steps.append(step) }
        }
        return steps
    }

    /// What to run next.
    private enum Next {
        /// Load the workflow again and run it all.
        case load
        /// Run these steps.
        case run([String])
    }

    /// Waits for changes that call for a run after one that ended by itself, or that a change
    /// stopped (`stopped`, how it went), and says what it is; `nil` when a signal ends the
    /// watch.
    private func nextRun(after stopped: RunSummary?) -> Next? {
        var announced = false
        while state.withLock({ $0.signal == nil }) {
            let (changed, plan, cache) = state.withLock { state in
                defer { state.changed = [] }
                return (state.changed, state.plan, state.cache)
            }
            guard let plan else { return .load }
            // Against what the steps read in the run just made: a step that ran after a
            // change has already seen it.
            let change = plan.change(for: changed) { path, step in
                let recorded = cache?.recordedDigests(of: path, forStep: step) ?? []
                return Self.differs(ContentStore.digest(ofFileAt: path), from: recorded)
            }
            if let first = change.workflowFiles.first {
                host.notice("procflow: \(display(first)) changed: loading the workflow again")
                return .load
            }
            for (path, steps) in change.sources {
                host.notice("procflow: \(display(path)) changed, a source of \(list(steps))")
            }
            if let stopped {
                // What the stopped run had not done is still to do.
                var steps = Self.unfinished(stopped)
                steps += change.steps.filter { !steps.contains($0) }
                if !steps.isEmpty {
                    host.notice("procflow: running \(list(steps)) again")
                    return .run(steps)
                }
            }
            if !change.steps.isEmpty {
                host.notice("procflow: running \(list(change.steps))")
                return .run(change.steps)
            }
            if !announced {
                announced = true
                host.notice("procflow: watching for changes (Ctrl-C to stop)")
            }
            waitForChange()
        }
        return nil
    }

    private func waitForChange() {
        wake.wait()
    }

    // MARK: - Changes

    /// Called on the watcher's thread with the files that changed: keeps those the workflow
    /// reads, and stops the run going on if the change affects one of its running steps.
    private func noticed(_ paths: [String]) {
        let (plan, cache) = state.withLock { ($0.plan, $0.cache) }
        guard let plan else {
            // The workflow could not be loaded: a change to a workflow or dotenv file may fix it.
            let files = state.withLock { $0.workflowFiles }
            let names = paths.map { $0[($0.lastIndex(of: "/") ?? $0.startIndex)...] }
            if paths.contains(where: files.contains)
                || names.contains(where: { $0.hasSuffix(".json") || $0.hasPrefix("/.env") })
            {
                wake.signal()
            }
            return
        }
        // Each file's content now, and when it was last seen (`nil`: not yet), read once.
        var contents: [String: (now: Digest?, before: Digest??)] = [:]
        let change = plan.change(for: paths) { path, step in
            let content =
                contents[path]
                ?? (ContentStore.digest(ofFileAt: path), state.withLock { $0.seen[path] })
            contents[path] = content
            // Against what it was when last seen, or else what this step last read: steps
            // that read a file may have read different versions of it.
            let earlier =
                content.before.map { [$0] } ?? cache?.recordedDigests(of: path, forStep: step)
                ?? []
            return Self.differs(content.now, from: earlier)
        }
        let (shouldStop, runner) = state.withLock { state -> (Bool, WorkflowRunner?) in
            for (path, content) in contents { state.seen[path] = .some(content.now) }
            guard !change.isEmpty else { return (false, nil) }
            state.changed += change.workflowFiles + change.sources.map(\.path)
            guard let runner = state.runner, !state.stopped else { return (false, nil) }
            let running = Set(runner.runningSteps.map(ForEach.stepID(ofInstance:)))
            let stops =
                !change.workflowFiles.isEmpty || change.steps.contains(where: running.contains)
            if stops { state.stopped = true }
            return (stops, runner)
        }
        guard !change.isEmpty else { return }
        if shouldStop, let runner {
            let what = change.workflowFiles.first ?? change.sources.first?.path ?? ""
            host.notice("procflow: \(display(what)) changed: stopping the run")
            runner.interrupt(signal: SIGTERM)
        }
        wake.signal()
    }

    /// Whether a file whose content is `now` (`nil`: missing) is new beside what it was when
    /// last read or seen (`earlier`, empty when it never was: then any file there is new, and
    /// a missing one is no change, as a temporary file made and removed).
    private static func differs(_ now: Digest?, from earlier: [Digest?]) -> Bool {
        earlier.isEmpty ? now != nil : earlier.contains { $0 != now }
    }

    /// `path` relative to the current directory when it is below it.
    private func display(_ path: String) -> String {
        shown(path, from: resolve(".", in: "."))
    }

    private func list(_ steps: [String]) -> String {
        steps.joined(separator: ", ")
    }
}

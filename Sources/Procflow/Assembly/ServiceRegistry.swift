import Foundation
import ProcedureKit

/// The services of one run, and the steps that depend on them.
///
/// A service is stopped (SIGTERM to its process group, the grace period, then SIGKILL) once
/// every step that depends on it (or on a group or branch holding it) has finished — whatever
/// became of it, and a step in a group or a branch counts as finished when that does — or when
/// the run ends. A service that exits before then fails the dependents still running or
/// waiting, saying so.
final class ServiceRegistry: Sendable {
    private struct Entry {
        /// The dependents that have not finished.
        var waiting: Set<String>
        /// Its procedure, once the service is ready.
        var procedure: ShellProcedure?
        /// Stopped by the registry: its exit is expected.
        var stopping = false
    }

    private struct State {
        var entries: [String: Entry]
        /// The run is ending: services exiting now fail nothing.
        var ending = false
    }

    /// The groups and branches each dependent is in.
    private let paths: [String: [String]]
    private let state: Locked<State>
    /// The procedure of a step, once built.
    private let node: @Sendable (String) -> Procedure?
    /// The services that were ready and have not yet exited.
    private let running = DispatchGroup()

    /// The services among `steps`, each with the steps that name it (or a group or branch
    /// holding it) among their prerequisites; `node` finds a step's procedure.
    init(steps: [NestedStep], node: @escaping @Sendable (String) -> Procedure?) {
        var entries: [String: Entry] = [:]
        // Naming a service, or a group or branch that holds it, makes a step its dependent.
        var services: [String: [String]] = [:]
        for nested in steps where nested.step.service != nil {
            entries[nested.step.id] = Entry(waiting: [])
            for holder in [nested.step.id] + nested.path {
                services[holder, default: []].append(nested.step.id)
            }
        }
        var paths: [String: [String]] = [:]
        for nested in steps where !services.isEmpty {
            for id in nested.step.prerequisites {
                for service in services[id] ?? [] {
                    entries[service]?.waiting.insert(nested.step.id)
                    paths[nested.step.id] = nested.path
                }
            }
        }
        self.paths = paths
        state = Locked(State(entries: entries))
        self.node = node
    }

    /// The service `id` is ready; stopped at once if nothing in the run depends on it.
    func ready(_ id: String, _ procedure: ShellProcedure) {
        running.enter()
        let stop = state.withLock { state -> Bool in
            state.entries[id]?.procedure = procedure
            guard state.entries[id]?.waiting.isEmpty == true else { return false }
            state.entries[id]?.stopping = true
            return true
        }
        if stop { procedure.stopService() }
    }

    /// The step `id` has finished: the services whose last dependent it was (or held) stop.
    func finished(_ id: String) {
        let done = state.withLock { state -> [ShellProcedure] in
            var done: [ShellProcedure] = []
            for (service, entry) in state.entries where !entry.waiting.isEmpty {
                let finished = entry.waiting.filter {
                    $0 == id || paths[$0]?.contains(id) == true
                }
                guard !finished.isEmpty else { continue }
                state.entries[service]?.waiting.subtract(finished)
                guard state.entries[service]?.waiting.isEmpty == true, !entry.stopping,
                    let procedure = entry.procedure
                else { continue }
                state.entries[service]?.stopping = true
                done.append(procedure)
            }
            return done
        }
        for procedure in done { procedure.stopService() }
    }

    /// The service `id` exited after it was ready: unless the registry stopped it, the
    /// dependents that have not finished fail.
    func exited(_ id: String, _ outcome: CommandOutcome) {
        defer { running.leave() }
        let waiting = state.withLock { state -> Set<String> in
            guard let entry = state.entries[id], !entry.stopping, !state.ending else { return [] }
            state.entries[id]?.stopping = true
            return entry.waiting
        }
        let how = Self.describe(outcome.termination)
        let unfinished = waiting.sorted().compactMap { dependent in
            node(dependent).map { (id: dependent, procedure: $0, running: $0.isExecuting) }
        }.filter { !$0.procedure.isFinished }
        // Those waiting first: a running one's end would otherwise judge them by it.
        for dependent in unfinished.filter({ !$0.running }) + unfinished.filter(\.running) {
            let when =
                dependent.running
                ? "while \(dependent.id) was running" : "before \(dependent.id) started"
            dependent.procedure.cancel(
                with: StepError(
                    .serviceEnded, "service \(id) \(how) \(when)",
                    stderrTail: outcome.stderrTail))
        }
    }

    /// The run ends: every service still running is stopped.
    func stopAll() {
        let running = state.withLock { state -> [ShellProcedure] in
            state.ending = true
            var running: [ShellProcedure] = []
            for (id, entry) in state.entries where !entry.stopping {
                guard let procedure = entry.procedure else { continue }
                state.entries[id]?.stopping = true
                running.append(procedure)
            }
            return running
        }
        for procedure in running { procedure.stopService() }
    }

    /// Waits, at most `timeout` seconds, until every service that was ready has exited and its
    /// last lines have been reported.
    func waitForExits(timeout: TimeInterval) {
        _ = running.wait(timeout: .now() + timeout)
    }

    /// "exited with status 1", "was killed by SIGKILL (9)".
    private static func describe(_ termination: CommandOutcome.Termination) -> String {
        switch termination {
        case .exited(let code): "exited with status \(code)"
        case .signaled(let signal): "was killed by \(SignalName.describe(signal))"
        case .unknown(let reason), .notStarted(let reason), .ended(let reason): "ended (\(reason))"
        }
    }
}

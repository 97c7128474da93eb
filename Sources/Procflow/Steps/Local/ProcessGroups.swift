import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The process groups of the commands one user started (a run, or the shell procedures that
/// name no registry) and has not yet seen gone, so that a signal can be forwarded to all of
/// them and none outlives procflow.
public final class ProcessGroups: Sendable {
    /// The groups of the shell procedures that name no registry of their own.
    public static let shared = ProcessGroups()

    private struct State {
        var groups: Set<pid_t> = []
        /// Commands being spawned, not yet registered.
        var spawning = 0
        /// How many times ``signalAll(_:)`` was called, and the last signal it sent.
        var signalsSent = 0
        var lastSignal: Int32 = 0
    }

    private let state = Locked(State())

    /// An empty registry.
    public init() {}

    /// Notes that a command is about to be spawned; returns how many signals were sent to
    /// every group so far, for ``register(_:spawnedAfter:)`` (or ``spawnFailed()``).
    func spawning() -> Int {
        state.withLock { state in
            state.spawning += 1
            return state.signalsSent
        }
    }

    /// The command noted by ``spawning()`` did not start.
    func spawnFailed() {
        state.withLock { $0.spawning -= 1 }
    }

    /// Records that `group` (the leader's pid) is running. A signal sent to every group
    /// between the spawn (when `spawnedAfter` was read) and now missed it: it gets it now.
    func register(_ group: pid_t, spawnedAfter signalsSent: Int) {
        let missed = state.withLock { state -> Int32? in
            state.spawning -= 1
            state.groups.insert(group)
            return state.signalsSent > signalsSent ? state.lastSignal : nil
        }
        if let missed { kill(-group, missed) }
    }

    /// How many commands are running or being spawned.
    public var commandCount: Int {
        state.withLock { $0.groups.count + $0.spawning }
    }

    /// Records that nothing is left in `group`.
    func unregister(_ group: pid_t) {
        _ = state.withLock { $0.groups.remove(group) }
    }

    /// The groups still running.
    public var running: Set<pid_t> {
        state.withLock { $0.groups }
    }

    /// Sends `signal` to every group still running, and to those being spawned now.
    public func signalAll(_ signal: Int32) {
        let groups = state.withLock { state in
            state.signalsSent += 1
            state.lastSignal = signal
            return state.groups
        }
        for group in groups { kill(-group, signal) }
    }

    /// Whether a process of any group still running is alive (not a zombie): one reading of
    /// the process table for all of them.
    func anyAlive() -> Bool {
        let groups = running.filter { kill(-$0, 0) == 0 || errno == EPERM }
        guard !groups.isEmpty else { return false }
        return ProcessTable.read().entries.contains { groups.contains($0.group) && !$0.isZombie }
    }

    /// Whether any process of `group` is still alive. Zombies do not count: they have
    /// finished, and only wait for a parent (often init, for orphans) to reap them.
    static func isAlive(_ group: pid_t) -> Bool {
        guard kill(-group, 0) == 0 || errno == EPERM else { return false }
        return ProcessTable.read().entries.contains { $0.group == group && !$0.isZombie }
    }
}

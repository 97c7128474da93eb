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

    private let groups = Locked(Set<pid_t>())

    /// An empty registry.
    public init() {}

    /// Records that `group` (the leader's pid) is running.
    func register(_ group: pid_t) {
        _ = groups.withLock { $0.insert(group) }
    }

    /// Records that nothing is left in `group`.
    func unregister(_ group: pid_t) {
        _ = groups.withLock { $0.remove(group) }
    }

    /// The groups still running.
    public var running: Set<pid_t> {
        groups.withLock { $0 }
    }

    /// Sends `signal` to every group still running.
    public func signalAll(_ signal: Int32) {
        for group in running { kill(-group, signal) }
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

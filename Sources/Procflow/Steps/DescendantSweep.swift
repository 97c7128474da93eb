import CProcflow
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Ends the processes procflow started that are still alive when a run ends, wherever they
/// went.
///
/// procflow makes itself the subreaper of its descendants, so a process that left its
/// command's process group (`setsid cmd &`, a daemon's double fork) is reparented to procflow
/// rather than to init when its parent exits: it stays below procflow in the process tree,
/// where the sweep finds it. Limits: a process that procflow did not start (one a service
/// manager starts on a command's behalf) is not its descendant, and nothing survives a
/// SIGKILL of procflow itself to end what it left.
enum DescendantSweep {
    /// Makes this process the subreaper of its descendants, once; false if the system refused.
    @discardableResult
    static func becomeSubreaper() -> Bool {
        isSubreaper
    }

    private static let isSubreaper: Bool = procflow_set_child_subreaper() == 0

    /// Whether this process has any child, alive or a zombie. Without one it has no
    /// descendants at all: that is the common case, and it costs one system call.
    static func hasChildren() -> Bool {
        var info = siginfo_t()
        return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0
    }

    /// Sends SIGTERM to every live descendant `belongs` accepts, waits up to `gracePeriod`
    /// for them to end (less once `hurry` turns true), SIGKILLs the rest, then reaps this
    /// process's zombie children that no command run is waiting for.
    static func terminate(
        where belongs: (pid_t) -> Bool, gracePeriod: TimeInterval, hurry: () -> Bool
    ) {
        guard hasChildren() else { return }
        var targets = liveDescendants().filter(belongs)
        for pid in targets { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(gracePeriod)
        while !targets.isEmpty, Date() < deadline, !hurry() {
            usleep(20_000)
            let alive = Set(liveDescendants())
            targets = targets.filter(alive.contains)
        }
        for pid in targets { kill(pid, SIGKILL) }
        reapOrphans(waitingUpTo: targets.isEmpty ? 0 : 1)
    }

    /// The pids of this process's descendants that have not ended.
    private static func liveDescendants() -> [pid_t] {
        ProcessTable.read().descendants(of: getpid()).filter { !$0.isZombie }.map(\.pid)
    }

    /// Reaps zombie children that no ``ProcessRun`` watches (orphans reparented here), giving
    /// the ones just killed up to `seconds` to become zombies.
    private static func reapOrphans(waitingUpTo seconds: TimeInterval) {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            let me = getpid()
            let table = ProcessTable.read()
            let children = table.entries.filter { $0.parent == me }
            for child in children where child.isZombie && !ProcessRun.isWatched(child.pid) {
                var status: Int32 = 0
                waitpid(child.pid, &status, WNOHANG)
            }
            if !children.contains(where: { !$0.isZombie && !ProcessRun.isWatched($0.pid) }) {
                return
            }
            usleep(20_000)
        } while Date() < deadline
    }
}

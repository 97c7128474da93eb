import CProcflow
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Ends the processes a run's commands left behind that are still alive when the run ends,
/// wherever they went.
///
/// Two ways to find them. A process that owns everything below it (the `procflow` command)
/// makes itself the subreaper of its descendants: a process that left its command's process
/// group (`setsid cmd &`, a daemon's double fork) is reparented to it rather than to init when
/// its parent exits, so it stays below it in the process tree. A run inside a larger program
/// looks instead for processes whose environment carries its run id. Limits: a process a
/// service manager starts on a command's behalf is neither, and nothing ends what procflow
/// left if procflow itself is killed with SIGKILL.
enum LeftoverSweep {
    /// Makes this process the subreaper of its descendants, once; false if the system refused.
    @discardableResult
    static func becomeSubreaper() -> Bool {
        isSubreaper
    }

    private static let isSubreaper: Bool = procflow_set_child_subreaper() == 0

    /// The live processes below this one in the process tree. None, at the cost of one system
    /// call, when this process has no child at all: the common case.
    static func descendants() -> [pid_t] {
        var info = siginfo_t()
        guard waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return [] }
        return ProcessTable.read().descendants(of: getpid()).filter { !$0.isZombie }.map(\.pid)
    }

    /// The live processes whose environment sets `name` to `value`, or to `value/` and more
    /// (the id of a run that a command of this run started).
    static func carrying(_ name: String, value: String) -> [pid_t] {
        let exact = "\(name)=\(value)"
        return ProcessTable.read().entries.filter { entry in
            guard !entry.isZombie, entry.pid != getpid(),
                let environment = ProcessTable.environment(of: entry.pid)
            else { return false }
            return environment.contains { $0 == exact || $0.hasPrefix(exact + "/") }
        }.map(\.pid)
    }

    /// Sends SIGTERM to each of `pids`, waits up to `gracePeriod` for them to end (less once
    /// `hurry` turns true), SIGKILLs the rest, then reaps this process's zombie children that
    /// no command run is waiting for.
    static func terminate(_ pids: [pid_t], gracePeriod: TimeInterval, hurry: () -> Bool) {
        guard !pids.isEmpty else { return }
        var alive = pids
        for pid in alive { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(gracePeriod)
        while !alive.isEmpty, Date() < deadline, !hurry() {
            usleep(20_000)
            alive = alive.filter(isAlive)
        }
        for pid in alive { kill(pid, SIGKILL) }
        reapOrphans(waitingUpTo: alive.isEmpty ? 0 : 1)
    }

    private static func isAlive(_ pid: pid_t) -> Bool {
        ProcessTable.entry(pid).map { !$0.isZombie } ?? false
    }

    /// Reaps zombie children that no ``ProcessRun`` watches (orphans reparented here), giving
    /// the ones just killed up to `seconds` to become zombies.
    private static func reapOrphans(waitingUpTo seconds: TimeInterval) {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            let me = getpid()
            let children = ProcessTable.read().entries.filter {
                $0.parent == me && !ProcessRun.isWatched($0.pid)
            }
            for child in children where child.isZombie {
                var status: Int32 = 0
                waitpid(child.pid, &status, WNOHANG)
            }
            if !children.contains(where: { !$0.isZombie }) { return }
            usleep(20_000)
        } while Date() < deadline
    }
}

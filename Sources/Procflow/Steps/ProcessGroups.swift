import Dispatch
import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The process groups of every command procflow has started and not yet seen gone, so that a
/// signal can be forwarded to all of them and none outlives procflow.
public final class ProcessGroups: Sendable {
    /// The groups of this process's shell procedures.
    public static let shared = ProcessGroups()

    private let groups = Locked(Set<pid_t>())

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

    /// Whether any process of `group` is still alive. Zombies do not count: they have
    /// finished, and only wait for a parent (often init, for orphans) to reap them.
    static func isAlive(_ group: pid_t) -> Bool {
        guard kill(-group, 0) == 0 || errno == EPERM else { return false }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else {
            return true
        }
        for entry in entries where entry.first?.isNumber == true {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let nameEnd = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (name) ": state, parent pid, process group.
            let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
            guard fields.count > 2, Int32(fields[2]) == group else { continue }
            if fields[0] != "Z" && fields[0] != "X" { return true }
        }
        return false
    }
}

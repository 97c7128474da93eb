import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The processes of the system, as /proc shows them at one moment.
struct ProcessTable {
    /// One process.
    struct Entry {
        let pid: pid_t
        let parent: pid_t
        let group: pid_t
        /// Finished, waiting for its parent to reap it.
        let isZombie: Bool
    }

    let entries: [Entry]

    /// Reads /proc; empty if it cannot be read.
    static func read() -> ProcessTable {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return ProcessTable(
            entries: names.compactMap { name in
                guard name.first?.isNumber == true, let pid = pid_t(name) else { return nil }
                return entry(pid)
            })
    }

    /// The entry of `pid`, from /proc/PID/stat.
    static func entry(_ pid: pid_t) -> Entry? {
        guard case .success(let bytes) = POSIXIO.readFile("/proc/\(pid)/stat"),
            let nameEnd = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        // After "pid (name) ": state, parent pid, process group.
        let fields = bytes[(nameEnd + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 2, let state = fields[0].first,
            let parent = pid_t(String(decoding: fields[1], as: UTF8.self)),
            let group = pid_t(String(decoding: fields[2], as: UTF8.self))
        else { return nil }
        let zombie = state == UInt8(ascii: "Z") || state == UInt8(ascii: "X")
        return Entry(pid: pid, parent: parent, group: group, isZombie: zombie)
    }

    /// Every process below `root` in the process tree, parents before their children.
    func descendants(of root: pid_t) -> [Entry] {
        var children: [pid_t: [Entry]] = [:]
        for entry in entries { children[entry.parent, default: []].append(entry) }
        var found: [Entry] = []
        var pending = [root]
        while let parent = pending.popLast() {
            for child in children[parent] ?? [] where child.pid != root {
                found.append(child)
                pending.append(child.pid)
            }
        }
        return found
    }

    /// The environment of `pid` (`NAME=value` entries), or `nil` if it cannot be read.
    static func environment(of pid: pid_t) -> [Substring]? {
        guard case .success(let bytes) = POSIXIO.readFile("/proc/\(pid)/environ") else {
            return nil
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\0")
    }
}

import CProcflow
import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Watches directories, and the directories in them, with inotify (no polling), and reports
/// the paths of the files that were written, created, moved or removed there — once things
/// have been quiet for a moment, so that an editor's save or a `git checkout` is one report.
///
/// One thread waits on the inotify descriptor and on a pipe that ``stop()`` writes to.
final class FileWatcher: @unchecked Sendable {
    // @unchecked Sendable: `directories` is touched only by the watching thread once it has
    // started (and by init before); the descriptors are constants; `stopped` is a `Locked`.

    /// Why watching could not start.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Directory names not descended into: version control and build output.
    static let skipped: Set<String> = [".git", ".build", ".procflow", "node_modules"]

    private static let events = UInt32(
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)

    private let inotify: Int32
    /// The directories watched with those below them.
    private let roots: [String]
    private let wake: (read: Int32, write: Int32)
    /// The directory each watch descriptor stands for.
    private var directories: [Int32: String] = [:]
    private let stopped = Locked(false)

    /// The longest a change waits to be reported while others keep coming, in seconds.
    static let longestWait: TimeInterval = 1

    /// Watches `roots` and every directory below them (but ``skipped`` ones).
    ///
    /// - Throws: a ``Failure`` when inotify is not available or a root cannot be watched.
    init(roots: [String]) throws(Failure) {
        self.roots = roots
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else {
            throw Failure(description: "cannot watch files: \(String(cString: strerror(errno)))")
        }
        var pipe: [Int32] = [0, 0]
        guard procflow_pipe_cloexec(&pipe) == 0 else {
            close(inotify)
            throw Failure(description: "cannot watch files: \(String(cString: strerror(errno)))")
        }
        wake = (pipe[0], pipe[1])
        for root in roots {
            guard addTree(root) else {
                // Not closed here: every property is set, so the deinitializer runs as this
                // throws, and closes them. Closed twice, they were by then another thread's.
                throw Failure(
                    description: "cannot watch \(root): \(String(cString: strerror(errno)))")
            }
        }
    }

    deinit {
        close(inotify)
        close(wake.read)
        close(wake.write)
    }

    /// Watches `directory` and the directories below it; false if `directory` itself cannot be
    /// watched.
    private func addTree(_ directory: String) -> Bool {
        var files: [String]? = nil
        return addTree(directory, files: &files)
    }

    /// Watches `directory` and the directories below it, and returns the files found there.
    private func addTreeFindingFiles(_ directory: String) -> [String] {
        var files: [String]? = []
        addTree(directory, files: &files)
        return files ?? []
    }

    /// Watches `directory` and the directories below it, adding the files found there to
    /// `files` unless it is `nil`; false if `directory` itself cannot be watched.
    @discardableResult
    private func addTree(_ directory: String, files: inout [String]?) -> Bool {
        let descriptor = inotify_add_watch(inotify, directory, Self.events)
        guard descriptor >= 0 else { return false }
        directories[descriptor] = directory
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for entry in entries.sorted() where !Self.skipped.contains(entry) {
            let path = directory + "/" + entry
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                addTree(path, files: &files)
            } else {
                files?.append(path)
            }
        }
        return true
    }

    /// Reports changes to `onChange`, on a thread of its own, each batch after `quiet` seconds
    /// without a change — or after ``longestWait`` when changes keep coming — until ``stop()``.
    func start(quiet: TimeInterval, onChange: @escaping @Sendable ([String]) -> Void) {
        Thread { [self] in watch(quiet: quiet, onChange: onChange) }.start()
    }

    /// Ends the watch; no report comes after it returns (but one being made may finish).
    func stop() {
        stopped.withLock { $0 = true }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func watch(quiet: TimeInterval, onChange: @Sendable ([String]) -> Void) {
        var pending: [String] = []
        var seen: Set<String> = []
        /// When the first change not reported came, in nanoseconds of uptime.
        var firstChange: UInt64 = 0
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
        ]
        while !stopped.withLock({ $0 }) {
            var timeout: Int32 = -1
            if !pending.isEmpty {
                let waited = Double(DispatchTime.now().uptimeNanoseconds - firstChange) / 1e9
                // Changes that keep coming do not hold back those already seen.
                timeout =
                    waited >= Self.longestWait
                    ? 0 : Int32(min(quiet, Self.longestWait - waited) * 1000)
            }
            let ready = timeout == 0 ? 0 : poll(&descriptors, 2, timeout)
            if ready < 0, errno == EINTR { continue }
            if stopped.withLock({ $0 }) { return }
            if ready == 0 {
                onChange(pending)
                pending = []
                seen = []
                continue
            }
            if pending.isEmpty { firstChange = DispatchTime.now().uptimeNanoseconds }
            for path in readChanges() where seen.insert(path).inserted { pending.append(path) }
        }
    }

    /// The paths the events waiting on the inotify descriptor name; new directories are
    /// watched too, and the files already in them when they are reported. When the kernel's
    /// queue of events overflowed (many files changed at once), which changed is unknown:
    /// every file below the roots is reported.
    private func readChanges() -> [String] {
        var paths: [String] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else { return paths }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (event, name) = buffer.withUnsafeBytes { bytes in
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + MemoryLayout<inotify_event>.size
                    let raw = bytes[start..<start + Int(event.len)]
                    let name = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                    return (event, name)
                }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    for root in roots { paths += addTreeFindingFiles(root) }
                    continue
                }
                guard let directory = directories[event.wd] else { continue }
                let path = name.isEmpty ? directory : directory + "/" + name
                if event.mask & UInt32(IN_ISDIR) != 0 {
                    if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0,
                        !Self.skipped.contains(name)
                    {
                        paths += addTreeFindingFiles(path)
                    }
                    continue
                }
                paths.append(path)
            }
        }
    }
}

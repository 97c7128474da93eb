#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What `stat(2)` says of a file that tells whether its content may have changed.
struct FileStatus: Equatable, Sendable {
    var size: Int64
    /// The modification time, in nanoseconds since 1970.
    var modified: Int64
    /// The status change time, in nanoseconds since 1970: it moves whenever the content is
    /// written, even by a tool that puts the modification time back.
    var changed: Int64
    var inode: UInt64
    var mode: UInt32

    /// Whether it is a directory.
    var isDirectory: Bool { mode & S_IFMT == S_IFDIR }

    /// The permission bits.
    var permissions: UInt32 { mode & 0o7777 }

    /// The latest of its modification and change times.
    var lastChanged: Int64 { max(modified, changed) }

    /// Whether its times have no fraction of a second: a file system that keeps times to the
    /// second (ext4 with small inodes) or to two (FAT), whose times can be that far behind a
    /// change.
    var hasCoarseTimes: Bool {
        modified % 1_000_000_000 == 0 && changed % 1_000_000_000 == 0
    }

    /// How long after its last change a status is trusted to tell the next one, in
    /// nanoseconds: a file written twice within one tick of the file system's clock can keep
    /// its status (git's "racily clean" files). A second; two and a little more where times are
    /// kept to the second or two.
    var racyWindow: Int64 { hasCoarseTimes ? 2_000_000_001 : 1_000_000_000 }

    /// Whether, seen at `instant` (nanoseconds since 1970), this status can be trusted to tell
    /// a later change of the file.
    func isSettled(at instant: Int64) -> Bool {
        instant - lastChanged > racyWindow
    }

    /// Whether the file may have been written at `instant` (nanoseconds since 1970) or later,
    /// as far as its times can tell. They are the kernel's coarse clock, a tick (a few
    /// milliseconds: 10 at 100 Hz) behind the time a process reads; or whole seconds on a coarse file system.
    /// The change time counts: tools that put the modification time back (`cp -p`,
    /// `touch -r`, `rsync -t`, `tar x`) cannot set it.
    func mayHaveChanged(since instant: Int64) -> Bool {
        lastChanged + (hasCoarseTimes ? 2_000_000_001 : 10_000_000) > instant
    }

    /// Whether the same file with the same content, as far as `stat` can tell.
    func looksUnchanged(from other: FileStatus) -> Bool {
        size == other.size && modified == other.modified && changed == other.changed
            && inode == other.inode
    }
}

/// The few file-system calls the cache makes, as POSIX calls: they run for every source of
/// every step on every run.
enum FileSystem {
    /// The status of `path`, following symbolic links; `nil` if there is nothing there.
    static func status(_ path: String) -> FileStatus? {
        var buffer = stat()
        guard stat(path, &buffer) == 0 else { return nil }
        return FileStatus(buffer)
    }

    /// The status of an open file.
    static func status(descriptor: Int32) -> FileStatus? {
        var buffer = stat()
        guard fstat(descriptor, &buffer) == 0 else { return nil }
        return FileStatus(buffer)
    }

    /// The status of `path`, following symbolic links, looked up from `directory` (an open
    /// directory whose path is `prefix`, ending with `/`) when it is below it: a shorter walk
    /// for the kernel than from the root.
    static func status(_ path: String, below directory: Int32, prefix: String) -> FileStatus? {
        guard directory >= 0 else { return status(path) }
        var buffer = stat()
        let skipped = prefix.utf8.count
        // The prefix compared as C strings (a generic `starts(with:)` cost a tenth of a
        // snapshot's check), and the C string past it given to `fstatat`: no copy of the tail.
        let found = path.withCString { path -> Bool? in
            prefix.withCString { prefix in
                guard strncmp(path, prefix, skipped) == 0 else { return nil }
                return fstatat(directory, path + skipped, &buffer, 0) == 0
            }
        }
        guard let found else { return status(path) }
        return found ? FileStatus(buffer) : nil
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    static func isDirectory(_ path: String) -> Bool {
        status(path)?.isDirectory ?? false
    }

    /// A name in a directory, and whether it is a directory (symbolic links are not).
    struct Entry {
        var name: String
        var isDirectory: Bool
    }

    /// The entries of the directory at `path` but `.` and `..`; none if it cannot be read.
    static func entries(of path: String) -> [Entry] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var entries: [Entry] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            var isDirectory = entry.pointee.d_type == DT_DIR
            if entry.pointee.d_type == DT_UNKNOWN {
                var buffer = stat()
                isDirectory =
                    lstat(path + "/" + name, &buffer) == 0 && buffer.st_mode & S_IFMT == S_IFDIR
            }
            entries.append(Entry(name: name, isDirectory: isDirectory))
        }
        return entries
    }

    /// Calls `visit` with every file below `directory` (hidden ones too) and its status, not
    /// entering `excluded` nor directories reached through symbolic links.
    static func walk(
        _ directory: String, excluding excluded: String?, _ visit: (String, FileStatus) -> Void
    ) {
        var pending = [directory]
        while let current = pending.popLast() {
            if current == excluded { continue }
            for entry in entries(of: current) {
                let path = current == "/" ? "/" + entry.name : current + "/" + entry.name
                if entry.isDirectory {
                    pending.append(path)
                } else if let status = status(path), !status.isDirectory {
                    visit(path, status)
                }
            }
        }
    }

    /// The current time, in nanoseconds since 1970.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

}

extension FileStatus {
    fileprivate init(_ buffer: stat) {
        self.init(
            size: Int64(buffer.st_size),
            modified: Int64(buffer.st_mtim.tv_sec) * 1_000_000_000 + Int64(buffer.st_mtim.tv_nsec),
            changed: Int64(buffer.st_ctim.tv_sec) * 1_000_000_000 + Int64(buffer.st_ctim.tv_nsec),
            inode: UInt64(buffer.st_ino), mode: UInt32(buffer.st_mode))
    }
}

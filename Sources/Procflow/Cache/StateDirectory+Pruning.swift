#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension StateDirectory {
    /// The size the store is kept under after runs: 1 GiB.
    public static let defaultMaximumSize: Int64 = 1 << 30

    /// What pruning did.
    public struct PruneReport: Sendable, Equatable {
        /// Files removed: stored objects and histories.
        public var removed: Int
        /// Bytes they took.
        public var freed: Int64
        /// Bytes the store takes now.
        public var remaining: Int64
    }

    /// Removes the least recently used objects and histories until they take at most
    /// `maximumSize` bytes, and files left in `tmp` by runs that ended an hour or more ago.
    /// A step whose generated files are no longer stored runs again when they are missing.
    public func prune(toAtMost maximumSize: Int64) -> PruneReport {
        var files: [(path: String, size: Int64, used: Int64)] = []
        for folder in [objects, history] {
            FileSystem.walk(folder, excluding: nil) { path, status in
                files.append((path, status.size, status.modified))
            }
        }
        let hourAgo = FileSystem.now() - 3_600_000_000_000
        FileSystem.walk(temporary, excluding: nil) { path, status in
            if status.modified < hourAgo { unlink(path) }
        }
        var total = files.reduce(0) { $0 + $1.size }
        var report = PruneReport(removed: 0, freed: 0, remaining: total)
        guard total > maximumSize else { return report }
        for file in files.sorted(by: { $0.used < $1.used }) where total > maximumSize {
            guard unlink(file.path) == 0 else { continue }
            total -= file.size
            report.removed += 1
            report.freed += file.size
        }
        report.remaining = total
        return report
    }

    /// Removes everything procflow keeps in the directory, and the directory if that leaves
    /// it empty. Anything else in it is left alone.
    ///
    /// - Returns: how many files were removed.
    @discardableResult
    public func clean() -> Int {
        var removed = 0
        for folder in [objects, history, temporary] {
            var directories: [String] = []
            var pending = [folder]
            while let current = pending.popLast() {
                directories.append(current)
                for entry in FileSystem.entries(of: current) {
                    let path = current + "/" + entry.name
                    if entry.isDirectory {
                        pending.append(path)
                    } else if unlink(path) == 0 {
                        removed += 1
                    }
                }
            }
            for directory in directories.reversed() { rmdir(directory) }
        }
        for entry in FileSystem.entries(of: path) where !entry.isDirectory {
            if entry.name.hasSuffix(".state") || entry.name.hasSuffix(".lock")
                || entry.name.hasSuffix(".uptodate") || entry.name.hasSuffix(".durations")
                || entry.name.hasSuffix(".plan") || entry.name == ".gitignore",
                unlink(path + "/" + entry.name) == 0
            {
                removed += 1
            }
        }
        rmdir(path)
        return removed
    }
}

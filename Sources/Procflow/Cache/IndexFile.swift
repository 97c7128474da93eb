import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A workflow file's index in the state directory (each step's last run): read once when a run
/// starts; when it ends, the records it changed are appended to it, or merged with what other
/// runs wrote since, under the index's lock.
struct IndexFile {
    let directory: StateDirectory
    /// The index's path.
    let path: String
    /// The workflow file it is the index of.
    private let workflowFile: String
    /// What the index held when it was read (empty if it was missing, damaged or foreign).
    private(set) var loaded: StateIndex
    /// The index file's status and layout when it was read, then as this process last wrote
    /// it, to tell whether another run has written it since and whether an entry can be
    /// appended to it.
    private let written: Locked<(status: FileStatus?, layout: StateFile.Layout, mergedOthers: Bool)>
    /// Whether it was read whole: a damaged state means a full run, histories unused.
    let isSound: Bool
    /// What went wrong reading it, for the run to warn about.
    let warnings: [String]

    /// Reads the index of `workflowFile` in `directory`. A missing index is an empty one; a
    /// damaged or foreign one is ignored, with a warning.
    init(directory: StateDirectory, workflowFile: String) {
        self.directory = directory
        self.workflowFile = workflowFile
        path = directory.index(for: workflowFile)
        var warnings: [String] = []
        var isSound = true
        var index = StateIndex()
        var layout = StateFile.Layout()
        let loadedStatus = FileSystem.status(path)
        if loadedStatus != nil {
            switch POSIXIO.readFile(path) {
            case .success(let bytes):
                do {
                    (index, layout) = try StateIndex.decoding(bytes)
                } catch {
                    warnings.append(
                        "ignoring the state in \(path): \(error); every incremental step runs")
                    isSound = false
                }
            case .failure(let failure):
                warnings.append(
                    "cannot read the state in \(path): \(failure.message); every incremental step runs"
                )
                isSound = false
            }
        }
        if FileSystem.exists(directory.path), !FileSystem.isDirectory(directory.path) {
            warnings.append("the state directory \(directory.path) is not a directory")
        }
        loaded = index
        written = Locked((loadedStatus, layout, false))
        self.isSound = isSound
        self.warnings = warnings
    }

    /// Hands ``loaded`` over, keeping an empty index: for the one owner of the records read,
    /// which then passes what it read to ``save(_:changed:stored:isKnown:replaced:read:)``.
    mutating func takeLoaded() -> StateIndex {
        defer { loaded = StateIndex() }
        return loaded
    }

    /// Writes `learnt`'s records of the steps `changed` into the index, merged with what
    /// other runs wrote since it was read, holding the index's lock; keeps only the records
    /// `isKnown` accepts; counts `stored` more bytes in the store and prunes it past its
    /// bound. Another run's record that this one replaces is handed to `replaced`: one that
    /// differs from the record `read` says this run read (by default, from ``loaded``).
    ///
    /// If no other run wrote the index since, and it has no record to drop, the records are
    /// appended to it; otherwise, or once its entries pass half of its base, it is
    /// written whole.
    ///
    /// - Throws: a ``CacheProblem`` if the index cannot be written.
    func save(
        _ learnt: StateIndex, changed: some Collection<String>, stored: Int64,
        isKnown: (String) -> Bool, replaced: (StepRecord, String) -> Void,
        read: ((String) -> StepRecord?)? = nil
    ) throws(CacheProblem) {
        try directory.prepare()
        let lock = IndexLock(path: directory.lock(for: workflowFile))
        defer { lock.release() }
        let (before, layout, _) = written.withLock { $0 }
        let now = FileSystem.status(path)
        if now != nil, now == before, layout.isAppendable,
            learnt.storeSize + stored <= StateDirectory.defaultMaximumSize,
            !learnt.steps.keys.contains(where: { !isKnown($0) })
        {
            let entry = StateIndex.entry(changed.sorted(), stored: stored) { learnt.steps[$0] }
            if layout.appendedLength + entry.count <= max(Self.leastAppended, layout.baseLength / 2)
            {
                try append(entry, to: layout)
                return
            }
        }
        var merged = learnt
        if let now, now != before, case .success(let bytes) = POSIXIO.readFile(path),
            let written = try? StateIndex(decoding: bytes)
        {
            self.written.withLock { $0.mergedOthers = true }
            merged = written
            for id in changed {
                // Another run's record, written since this run read the index, is replaced:
                // it stays findable in the history.
                if let theirs = written.steps[id], theirs != (read?(id) ?? loaded.steps[id]),
                    let ours = learnt.steps[id], !theirs.isSameRun(as: ours)
                {
                    replaced(theirs, id)
                }
                merged.steps[id] = learnt.steps[id]
            }
        }
        // Filtered only when some record goes: a filtered copy of a large index is a second
        // table beside the run's own.
        if merged.steps.keys.contains(where: { !isKnown($0) }) {
            merged.steps = merged.steps.filter(ids: isKnown)
        }
        merged.storeSize += stored
        if merged.storeSize > StateDirectory.defaultMaximumSize {
            // Down to three quarters, so that the next runs do not measure it again.
            merged.storeSize =
                directory.prune(toAtMost: StateDirectory.defaultMaximumSize / 4 * 3).remaining
        }
        var length = 0
        try StateDirectory.write(to: path, temporary: directory.temporary) {
            descriptor throws(POSIXIO.Failure) in
            length = try merged.write(to: descriptor)
        }
        remember(StateFile.Layout(baseLength: length, isAppendable: true))
    }

    /// The most bytes of entries an index's file holds before it is written whole, however
    /// small its base: a small index is cheap to write again, but not at every run.
    static let leastAppended = 16 << 10

    /// Appends `entry` to the index's file, whose layout is `layout`.
    private func append(_ entry: [UInt8], to layout: StateFile.Layout) throws(CacheProblem) {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CacheProblem(message: "cannot open \(path): \(POSIXIO.Failure.current.message)")
        }
        defer { close(descriptor) }
        var failure: POSIXIO.Failure?
        entry.withUnsafeBytes { buffer in
            do throws(POSIXIO.Failure) {
                try POSIXIO.write(buffer, to: descriptor)
            } catch {
                failure = error
            }
        }
        if let failure {
            throw CacheProblem(message: "cannot write \(path): \(failure.message)")
        }
        var after = layout
        after.appendedLength += entry.count
        remember(after)
    }

    /// The index file's status as this process read it, or last wrote it; `nil` if it merged
    /// what another run wrote since it read it (what it read of the records other than its
    /// own may not be what the file holds).
    var ownStatus: FileStatus? {
        written.withLock { $0.mergedOthers ? nil : $0.status }
    }

    /// Keeps the index file's status now, as this process wrote it with `layout`.
    private func remember(_ layout: StateFile.Layout) {
        let status = FileSystem.status(path)
        written.withLock {
            $0.status = status
            $0.layout = layout
        }
    }
}

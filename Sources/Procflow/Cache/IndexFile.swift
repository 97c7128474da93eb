/// A workflow file's index in the state directory (each step's last run): read once when a run
/// starts, and merged with what other runs wrote since, under the index's lock, when it ends.
struct IndexFile {
    let directory: StateDirectory
    /// The index's path.
    let path: String
    /// The workflow file it is the index of.
    private let workflowFile: String
    /// What the index held when it was read (empty if it was missing, damaged or foreign).
    let loaded: StateIndex
    /// The index file's status when it was read, to tell whether another run has written it
    /// since.
    private let loadedStatus: FileStatus?
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
        loadedStatus = FileSystem.status(path)
        if loadedStatus != nil {
            switch POSIXIO.readFile(path) {
            case .success(let bytes):
                do {
                    index = try StateIndex(decoding: bytes)
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
        self.isSound = isSound
        self.warnings = warnings
    }

    /// Writes `learnt`'s records of the steps `changed` into the index, merged with what
    /// other runs wrote since it was read, holding the index's lock; keeps only the records
    /// `isKnown` accepts; counts `stored` more bytes in the store and prunes it past its
    /// bound. Another run's record that this one replaces is handed to `replaced`.
    ///
    /// - Throws: a ``CacheProblem`` if the index cannot be written.
    func save(
        _ learnt: StateIndex, changed: Set<String>, stored: Int64,
        isKnown: (String) -> Bool, replaced: (StepRecord, String) -> Void
    ) throws(CacheProblem) {
        try directory.prepare()
        let lock = IndexLock(path: directory.lock(for: workflowFile))
        defer { lock.release() }
        var merged = learnt
        if let now = FileSystem.status(path), now != loadedStatus,
            case .success(let bytes) = POSIXIO.readFile(path),
            let written = try? StateIndex(decoding: bytes)
        {
            merged = written
            for id in changed {
                // Another run's record, written since this run read the index, is replaced:
                // it stays findable in the history.
                if let theirs = written.steps[id], theirs != loaded.steps[id],
                    let ours = learnt.steps[id], !theirs.isSameRun(as: ours)
                {
                    replaced(theirs, id)
                }
                merged.steps[id] = learnt.steps[id]
            }
        }
        merged.steps = merged.steps.filter { isKnown($0.key) }
        merged.storeSize += stored
        if merged.storeSize > StateDirectory.defaultMaximumSize {
            // Down to three quarters, so that the next runs do not measure it again.
            merged.storeSize =
                directory.prune(toAtMost: StateDirectory.defaultMaximumSize / 4 * 3).remaining
        }
        try StateDirectory.write(merged.encoded(), to: path, temporary: directory.temporary)
    }
}

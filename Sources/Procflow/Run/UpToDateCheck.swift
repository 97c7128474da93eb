import ProcedureKit

/// The up-to-date snapshot around one run: a run that finds everything up to date leaves one,
/// and the next answers from it without loading the workflow if nothing it looked at changed.
struct UpToDateCheck {
    /// What the snapshot is of: the workflow file, `--var` and the targets.
    let key: UpToDateSnapshot.Key
    let directory: StateDirectory
    /// Whether this run may answer from a snapshot and leave one: not when it must write
    /// reports of the run, force or skip the cache, or only plan.
    let applies: Bool
    /// The workflow file's status and the time, before it was read.
    private var beforeReading: (status: FileStatus?, seenAt: Int64)?

    init(
        workflowFile: String, overrides: [(name: String, value: String)], targets: [String],
        directory: StateDirectory, applies: Bool
    ) {
        key = UpToDateSnapshot.Key(
            workflow: resolve(workflowFile, in: "."),
            overrides: overrides.map { "\($0.name)=\($0.value)" },
            only: targets.isEmpty ? nil : targets.joined(separator: " "))
        self.directory = directory
        self.applies = applies
    }

    /// The snapshot that answers this run, if one does.
    func current() -> UpToDateSnapshot? {
        guard applies, directory.refusal() == nil else { return nil }
        return UpToDateSnapshot.current(in: directory, for: key)
    }

    /// Notes the workflow file's status just before it is read.
    mutating func noteReading() {
        beforeReading = (FileSystem.status(key.workflow), FileSystem.now())
    }

    /// Removes the snapshot before a run that may change what it says.
    func invalidate(with cache: StepCache?) {
        guard applies, let cache else { return }
        UpToDateSnapshot.remove(in: cache.directory, for: key.workflow)
    }

    /// Leaves a snapshot after `runner`'s run if it found everything up to date (or every
    /// incremental step: ``UpToDateSnapshot/settledSteps``) and every file it looked at can
    /// be trusted to show a change: the workflow, read as `bytes`, and
    /// `otherFiles` (its included and dotenv files, with their statuses when read at
    /// `loadedAt`).
    func record(
        after runner: WorkflowRunner, cache: StepCache?, workflowName: String, bytes: [UInt8],
        otherFiles: [(path: String, status: FileStatus?)], loadedAt: Int64
    ) {
        // A run that ran steps besides its up-to-date incremental ones leaves a snapshot of
        // those alone, if it can.
        let settledSteps = runner.isUpToDate ? nil : runner.settledIncrementalSteps
        guard applies, runner.isUpToDate || settledSteps != nil, let cache,
            let snapshotFiles = cache.snapshotFiles(of: runner.incremental),
            let keys = runner.cacheKeyRecheck,
            let indexStatus = cache.indexStatus,
            otherFiles.allSatisfy({ $0.status.map { $0.isSettled(at: loadedAt) } ?? true }),
            let (status, seenAt) = beforeReading
        else { return }
        let trusted = status.map { $0.isSettled(at: seenAt) }
        UpToDateSnapshot(
            key: key, digest: SHA256.hash(bytes),
            workflowStatus: trusted == true ? status : nil, indexStatus: indexStatus,
            name: workflowName, steps: settledSteps == nil ? runner.upToDateSteps : [],
            files: otherFiles + snapshotFiles + keys.recheck.files,
            keyCommands: keys.recheck.commands, keyDirectory: keys.directory,
            keyAdditions: keys.additions, settledSteps: settledSteps
        ).write(in: cache.directory)
    }
}

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

    /// Leaves a snapshot after `runner`'s run if every file it looked at can be trusted to
    /// show a change (the workflow as `read`, and `otherFiles`: its included and dotenv
    /// files, with their statuses when read at `loadedAt`): of everything, if it found
    /// everything up to date; else of the incremental steps whose last records stand for this
    /// run and whose files' statuses can be trusted (``UpToDateSnapshot/settledSteps``), if
    /// any. `previous` is the snapshot that settled some of them
    /// (``WorkflowRunner/settledFromSnapshot``): they are taken from it, as it looked at them.
    func record(
        after runner: WorkflowRunner, cache: StepCache?, workflowName: String, read: WorkflowRead,
        otherFiles: [(path: String, status: FileStatus?)], loadedAt: Int64,
        previous: UpToDateSnapshot? = nil
    ) {
        guard applies, let cache, let keys = runner.cacheKeyRecheck,
            let indexStatus = cache.indexStatus,
            otherFiles.allSatisfy({ $0.status.map { $0.isSettled(at: loadedAt) } ?? true }),
            let (status, seenAt) = beforeReading
        else { return }
        let trusted = status.map { $0.isSettled(at: seenAt) }
        var steps = SettledSteps(shared: otherFiles + keys.recheck.files)
        // Those the previous snapshot settled, with the files it looked at for them.
        if let previous, !runner.settledFromSnapshot.isEmpty {
            steps.carry(previous, runner.settledFromSnapshot)
        }
        guard steps.steps.count == runner.settledFromSnapshot.count else { return }
        var settledSteps: [(id: String, value: JSONValue)]? = nil
        if runner.isUpToDate {
            // Every step's files: every one counts for every step.
            guard
                let files = cache.snapshotFiles(
                    of: runner.incremental, count: runner.incrementalStepCount)
            else { return }
            steps.addShared(files)
        } else {
            guard runner.leavesSnapshotOfSettledSteps else { return }
            for step in runner.incremental where cache.isConfirmed(step.id) {
                var files: [(path: String, status: FileStatus?)] = []
                guard
                    cache.snapshotFiles(
                        of: step.id, sources: step.sources, { files.append(($0, $1)) }),
                    let record = cache.latestRecord(of: step.id),
                    let value = cache.value(of: record)
                else { continue }
                steps.add(step.id, value: value, files: files)
            }
            guard !steps.steps.isEmpty else { return }
            settledSteps = steps.steps
        }
        // The workflow read is the one the previous snapshot was of (`isOf`): its digest
        // stands.
        var snapshot = UpToDateSnapshot(
            key: key, digest: previous?.digest ?? read.digest,
            workflowStatus: trusted == true ? status : nil, indexStatus: indexStatus,
            name: workflowName, steps: runner.isUpToDate ? runner.upToDateSteps : [],
            files: steps.files, keyCommands: keys.recheck.commands, keyDirectory: keys.directory,
            keyAdditions: keys.additions, settledSteps: settledSteps)
        if settledSteps != nil {
            snapshot.filesOfSettledSteps = steps.filesOfSteps
            snapshot.sharedFileCount = steps.sharedCount
            // A next run settles them all before it starts, without deciding or ordering any,
            // only if this one could too: a step under a condition or a branch, or that waits
            // for one that runs, is settled only as its turn comes.
            let every = runner.incrementalStepCount
            snapshot.settlesEveryIncrementalStep =
                steps.steps.count == every && runner.settledBeforeRunCount == every
        }
        snapshot.write(in: cache.directory)
    }
}

/// The settled steps of a snapshot as they are gathered, and the files they stand on, after
/// those every step stands on. A file is listed once for the steps that agree on its status;
/// one that another step's record gives another status is listed again for it (then the next
/// check finds one of the two changed, and does not settle its step).
private struct SettledSteps {
    private(set) var files: [(path: String, status: FileStatus?)]
    /// How many of ``files`` every step stands on.
    private(set) var sharedCount: Int
    private(set) var steps: [(id: String, value: JSONValue)] = []
    private(set) var filesOfSteps: [[UInt32]] = []
    /// Where each path is listed, made once a step of this run is added (the previous
    /// snapshot's steps keep its positions).
    private var positions: [String: UInt32]?

    init(shared: [(path: String, status: FileStatus?)]) {
        files = shared
        sharedCount = shared.count
    }

    /// Adds the steps of `previous` whose ids are `ids`, standing on the files it gave them.
    mutating func carry(_ previous: UpToDateSnapshot, _ ids: Set<String>) {
        guard let settled = previous.settledSteps else { return }
        // The previous snapshot's positions, mapped to this one's as its files are taken.
        var taken = [UInt32?](repeating: nil, count: previous.files.count)
        for (index, step) in settled.enumerated() where ids.contains(step.id) {
            let stepFiles =
                previous.filesOfSettledSteps?[index]
                ?? Array(UInt32(previous.sharedFileCount)..<UInt32(previous.files.count))
            var own: [UInt32] = []
            own.reserveCapacity(stepFiles.count)
            for position in stepFiles {
                if let mapped = taken[Int(position)] {
                    own.append(mapped)
                } else {
                    let mapped = UInt32(files.count)
                    taken[Int(position)] = mapped
                    files.append(previous.files[Int(position)])
                    own.append(mapped)
                }
            }
            steps.append(step)
            filesOfSteps.append(own)
        }
    }

    /// Adds files every step stands on (for a snapshot of everything).
    mutating func addShared(_ shared: [(path: String, status: FileStatus?)]) {
        files += shared
        sharedCount = files.count
    }

    /// Adds the step `id`, which gives `value` and stands on `stepFiles`.
    mutating func add(
        _ id: String, value: JSONValue, files stepFiles: [(path: String, status: FileStatus?)]
    ) {
        if positions == nil {
            var all: [String: UInt32] = [:]
            all.reserveCapacity(files.count + stepFiles.count)
            for (position, file) in files.enumerated() where position >= sharedCount {
                all[file.path] = UInt32(position)
            }
            positions = all
        }
        var own: [UInt32] = []
        own.reserveCapacity(stepFiles.count)
        for file in stepFiles {
            if let position = positions?[file.path], files[Int(position)].status == file.status {
                own.append(position)
                continue
            }
            let position = UInt32(files.count)
            positions?[file.path] = position
            files.append(file)
            own.append(position)
        }
        steps.append((id, value))
        filesOfSteps.append(own)
    }
}

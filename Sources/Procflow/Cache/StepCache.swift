import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What procflow remembers of a workflow's runs, for one run: decides whether each
/// incremental step is up to date, puts back what it generated, and records what the steps
/// that ran read and made.
///
/// Files are read through ``FileDigests`` (each at most once, by `stat`), records and contents
/// kept in a ``ResultStore``, and the index read and written by ``IndexFile``.
///
/// What a run records is what its command saw and made, or nothing: a file its depfile names
/// that may have changed while it ran is recorded as unknown (the next run runs the step), and
/// a generated file that changed after the command ended, or while it was being read
/// (another run writing it), keeps the run from being recorded. The content of a generated
/// file of tens or hundreds of KiB (``ContentStore/keptSizes``: a linked program) is kept
/// as it was read, and written into the store beside the run
/// (``BackgroundWrites``): what puts files back, or reads a history, waits for those writes
/// first.
public final class StepCache: @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `state`, a `Locked` mutex; the rest is
    // constant.

    private struct State {
        var index = StateIndex()
        /// What this run did with each step's last record (``Mark``'s bits): one table for
        /// both, not two sets (at 100,000 steps, 8 MB of buckets holding the same ids).
        var marks = DenseTable<String, UInt8>()
        /// Bytes this run added to the store.
        var storedBytes: Int64 = 0
        /// The records the index gave of the steps this run replaced, as it read them: what a
        /// save tells another run's records by (those it wrote since are kept in the history).
        var replaced: [String: StepRecord] = [:]
        /// What went wrong writing the state directory during the run.
        var problems: [String] = []
        /// The contents given to the writes beside the run and not yet stored, by digest (how
        /// many times each), and how many histories are to be written.
        var objectsToWrite: [Digest: Int] = [:]
        var historiesToWrite = 0

        /// Marks the step `id` with `mark`.
        mutating func mark(_ id: String, _ mark: Mark) {
            marks[id] = (marks[id] ?? 0) | mark.rawValue
        }

        /// The steps marked with `mark`.
        func marked(_ mark: Mark) -> [String] {
            // A list of the size it needs, not a set: made at the end of the run, where its
            // memory is highest.
            var ids: [String] = []
            ids.reserveCapacity(marks.values.count { $0 & mark.rawValue != 0 })
            for (id, marks) in marks where marks & mark.rawValue != 0 { ids.append(id) }
            return ids
        }
    }

    /// What a run did with a step's last record.
    private enum Mark: UInt8 {
        /// Made or replaced: to be saved.
        case changed = 1
        /// It stands for what the step was given in this run: decided up to date, or run and
        /// recorded.
        case confirmed = 2
        /// This run made or replaced it, saved or not.
        case madeByRun = 4
    }

    /// The directory the state is kept in.
    public let directory: StateDirectory
    private let workflowFile: String
    private let store: LocalStore
    /// The copies of generated files and the histories this run writes, done beside it.
    private let writes = BackgroundWrites()
    /// The remote cache layered on the store, if the run has one.
    let remote: RemoteCache?
    /// The files this run reads and makes, named in its tables from the workflow's directory.
    let files: FileDigests
    private let indexFile: IndexFile
    /// Every step id of the workflow file: records of other ids, other than the instances of
    /// its `forEach` steps, are dropped when the index is saved.
    private let stepIDs: Set<String>
    /// The ids of its `forEach` steps.
    private let forEachIDs: Set<String>
    private let state = Locked(State())
    /// What went wrong reading the state, for the run to warn about.
    public let warnings: [String]

    /// Reads the state of the workflow file `workflowFile` (whose steps' ids are `stepIDs`)
    /// from `directory`. A missing state is an empty one; a damaged or foreign one is
    /// ignored, with a warning, and every step runs.
    public init(
        directory: StateDirectory, workflowFile: String, stepIDs: Set<String>,
        forEachIDs: Set<String> = [], remote: RemoteCache? = nil
    ) {
        self.remote = remote
        self.directory = directory
        self.workflowFile = workflowFile
        files = FileDigests(
            mostlyIn: Procflow.directory(of: lexicallyNormalized(resolve(workflowFile, in: "."))))
        self.stepIDs = stepIDs
        self.forEachIDs = forEachIDs
        store = LocalStore(directory: directory)
        var indexFile = IndexFile(directory: directory, workflowFile: workflowFile)
        warnings = indexFile.warnings
        // The cache's index is the only one: a second kept by the file would be copied when
        // the first changes, and hold the bytes of the file its records are read from.
        let loaded = indexFile.takeLoaded()
        self.indexFile = indexFile
        state.withLock { $0.index = loaded }
        // Room for every file the records name, once: not grown as the steps are decided.
        files.reserveCapacity(loaded.steps.namedFiles)
    }

    /// Makes room for `steps` steps to be recorded by this run, which read and make about
    /// `files` files: the tables of what it learns are made once, at their size, rather than
    /// doubled as it goes (each doubling holds the old table and the new one at once, late in
    /// a large run: tens of MiB at 100,000 steps). The records it makes are kept encoded,
    /// past a buffer's worth in a private file of the state directory (``RecordSpill``).
    func expect(steps: Int, files: Int) {
        state.withLock { state in
            state.index.steps.reserveCapacity(max(state.index.steps.count, steps))
            state.index.steps.spill(into: directory.temporary)
            state.marks.reserveCapacity(steps)
        }
        self.files.reserveCapacity(files)
    }

    /// How many steps' records the run's index holds without growing.
    var recordCapacity: Int {
        state.withLock { $0.index.steps.capacity }
    }

    // MARK: - Deciding

    /// What is known of `step` before it runs, given its wired `inputs` (`input` or
    /// environment variable names with their values): a record without outcome. Files whose
    /// status is the one `latest` recorded are not read.
    func fingerprint(
        _ step: IncrementalStep, inputs: [(name: String, value: JSONValue)],
        latest: StepRecord? = nil
    ) -> StepRecord {
        let recorded = latest?.sources ?? []
        var next = 0
        // Made absolute once; hundreds of files named (a link's objects) are looked up on
        // every core.
        let named = step.sources.paths
        let sources = step.sources.expand(
            named, in: step.directory, excluding: directory.path, status: files.status(of:),
            statuses: named.count >= FileDigests.parallelLookups
                ? files.statuses(of: Array(named)) : nil
        ).map {
            file -> StepRecord.Source in
            // Both lists are sorted by path.
            while next < recorded.count, recorded[next].path < file.path { next += 1 }
            let known = next < recorded.count && recorded[next].path == file.path
            let seen = files.observe(
                file.path, status: file.status, recorded: known ? recorded[next] : nil)
            return StepRecord.Source(path: file.path, digest: seen.digest, status: seen.status)
        }
        let wired = inputs.map { input in
            StepRecord.Input(
                name: input.name, digest: SHA256.hash(Array(JSONWriter.string(input.value).utf8)))
        }
        var record = StepRecord(
            definition: step.definition, environment: step.environment,
            directory: step.directory, inputs: wired.sorted { $0.name < $1.name },
            sources: sources, discovered: [], outputs: [], value: [])
        record.environmentEntries = step.environmentEntries
        if let base = step.definitionWithoutKey {
            record.environmentEntries.append(
                StepRecord.Input(name: StepExplanation.definitionWithoutKey, digest: base))
        }
        return record
    }

    /// Whether `step` must run, given its wired `inputs`, and why; or the record whose
    /// outcome stands, and which of its generated files must be put back first. A remote
    /// cache's answer is waited for unless `waitingForRemote` is false: then a step the remote
    /// has not answered for yet must run, as far as this decision goes.
    func decide(
        _ step: IncrementalStep, inputs: [(name: String, value: JSONValue)],
        waitingForRemote: Bool = true
    ) -> CacheDecision {
        let latest = state.withLock { $0.index.steps.record(step.id) }
        let current = fingerprint(step, inputs: inputs, latest: latest)
        var outputProblem: String?
        if let latest, latest.hasInputs(of: current) {
            var refreshed = latest
            refreshed.sources = current.sources
            if let discovered = files.unchanged(latest.discovered) {
                refreshed.discovered = discovered
                let differing = files.check(&refreshed.outputs)
                if differing.isEmpty { return .upToDate(refreshed, isNew: refreshed != latest) }
                if differing.allSatisfy({ storeHas($0.digest) }) {
                    return .restore(refreshed, differing)
                }
                outputProblem = StepExplanation.describe(differing, of: step)
            }
        }
        if indexFile.isSound {
            for var record in records(for: current.key) {
                if let latest, record.isSameRun(as: latest) { continue }
                guard let discovered = files.unchanged(record.discovered) else { continue }
                record.sources = current.sources
                record.discovered = discovered
                let differing = files.check(&record.outputs)
                if differing.allSatisfy({ storeHas($0.digest) }) {
                    return differing.isEmpty
                        ? .upToDate(record, isNew: true) : .restore(record, differing)
                }
            }
        }
        if let fetched = fromRemote(step, current: current, waiting: waitingForRemote) {
            return fetched
        }
        let reason =
            outputProblem
            ?? latest.map { StepExplanation.reason(current, against: $0, of: step, files: files) }
            ?? "no earlier run"
        return .run(reason: reason, fingerprint: current)
    }

    /// The outcome another machine recorded for `step` with `current`'s inputs, whose
    /// depfile's files are the same here, if the remote cache has one (and, unless `waiting`,
    /// has answered already).
    private func fromRemote(_ step: IncrementalStep, current: StepRecord, waiting: Bool)
        -> CacheDecision?
    {
        guard let remote, remote.isUsable,
            let records = remote.lookup(step, current: current, waiting: waiting)
        else { return nil }
        for var record in records {
            guard let discovered = files.unchanged(record.discovered) else { continue }
            record.discovered = discovered
            let differing = files.check(&record.outputs)
            remote.count(step.id, hit: true)
            return .fetched(record, differing)
        }
        remote.count(step.id, hit: false)
        return nil
    }

    /// Puts back the generated files a decision names and makes its record the step's last.
    /// A file whose content is not in the store (changed by hand) is put there before it is
    /// replaced.
    ///
    /// - Returns: a note for the report, such as "restored lapi.o", or `nil`.
    /// - Throws: a ``CacheProblem`` when a file cannot be put back: then the step must run.
    func settle(_ decision: CacheDecision, for step: IncrementalStep) throws(CacheProblem)
        -> String?
    {
        var record: StepRecord
        var note: String?
        switch decision {
        case .run: return nil
        case .upToDate(_, isNew: false):
            state.withLock { $0.mark(step.id, .confirmed) }
            return nil
        case .upToDate(let chosen, isNew: true):
            record = chosen
        case .fetched(let chosen, let outputs):
            record = chosen
            writes.wait()
            try remote?.fetch(outputs, into: store)
            let kept = try putBack(outputs, of: step, record: &record, fromElsewhere: true)
            note = "restored from the remote cache" + Self.keptNote(kept)
        case .restore(let chosen, let outputs):
            record = chosen
            writes.wait()
            let kept = try putBack(outputs, of: step, record: &record, fromElsewhere: false)
            note =
                "restored " + outputs.map { step.display($0.path) }.joined(separator: ", ")
                + Self.keptNote(kept)
        }
        makeLatest(record, of: step.id)
        state.withLock { $0.mark(step.id, .confirmed) }
        return note
    }

    /// Puts `outputs` back from the store, and forgets their statuses in `record` (put back
    /// just now, they are not to be trusted yet). A file changed by hand whose content the
    /// store lacks is stored first: returns where, for each. Files `fromElsewhere` (another
    /// machine's) must stay inside the step's working directory, symbolic links followed.
    ///
    /// - Throws: a ``CacheProblem`` when a file cannot be put back.
    private func putBack(
        _ outputs: [StepRecord.Output], of step: IncrementalStep, record: inout StepRecord,
        fromElsewhere: Bool
    ) throws(CacheProblem) -> [String] {
        var kept: [String] = []
        for file in outputs {
            if fromElsewhere, !Self.staysInside(file.path, step.directory) {
                throw CacheProblem(
                    message: "\(step.display(file.path)) leads out of the working directory")
            }
            let current = files.observe(
                file.path, status: FileSystem.status(file.path), recorded: nil)
            if let digest = current.digest, digest != FileDigests.directoryDigest,
                !store.contains(digest), let edited = try? store.add(fileAt: file.path)
            {
                kept.append("\(step.display(file.path)) as \(store.location(of: edited.digest))")
            }
            try store.restore(file.digest, to: file.path, permissions: file.permissions)
        }
        let restored = Set(outputs.map(\.path))
        for index in record.outputs.indices where restored.contains(record.outputs[index].path) {
            record.outputs[index].status = nil
        }
        return kept
    }

    /// What a note adds for copies changed by hand that were kept.
    private static func keptNote(_ kept: [String]) -> String {
        kept.isEmpty ? "" : "; the copy changed by hand is kept: " + kept.joined(separator: ", ")
    }

    /// Whether writing `path` stays inside `directory` once symbolic links are followed: the
    /// nearest existing directory above it must resolve inside `directory`'s real path.
    static func staysInside(_ path: String, _ directory: String) -> Bool {
        guard let base = realpath(directory, nil) else { return false }
        defer { free(base) }
        let root = String(cString: base)
        var folder = Procflow.directory(of: path)
        while !FileSystem.exists(folder), folder != "/" { folder = Procflow.directory(of: folder) }
        guard let resolved = realpath(folder, nil) else { return false }
        defer { free(resolved) }
        let real = String(cString: resolved)
        if FileSystem.isDirectory(path) { return false }
        return real == root || real.hasPrefix(root == "/" ? "/" : root + "/")
    }

    /// The output a step's record gives, parsed.
    func value(of record: StepRecord) -> JSONValue? {
        if record.value == Self.null { return .null }
        return try? JSONParser.parse(record.value).plain
    }

    private static let null = Array("null".utf8)

    /// Makes every record the index read from its file at once, and lets the file's bytes go,
    /// if a run that decides `steps` steps would ask for most of them anyway (one that decides
    /// every step of a large workflow: its file, 33 MB at 100,000 steps, is not held while
    /// they are decided).
    func makeRecordsAhead(deciding steps: Int) {
        state.withLock { state in
            if 2 * steps >= state.index.steps.count { state.index.steps.makeEveryRecord() }
        }
    }

    /// The record of the last successful run of the step `id`.
    func latestRecord(of id: String) -> StepRecord? {
        state.withLock { $0.index.steps.record(id) }
    }

    /// The digests with which the last successful runs of the step `id`, or of its instances
    /// (`id[0]`, …), read `path` (`nil` for a file they found missing); empty if none did.
    func recordedDigests(of path: String, forStep id: String) -> [Digest?] {
        let instances = id + "["
        return state.withLock { state in
            state.index.steps.compactMap { key, record -> Digest?? in
                guard key == id || key.hasPrefix(instances) else { return nil }
                let source =
                    record.sources.first { $0.path == path }
                    ?? record.discovered.first { $0.path == path }
                return source.map(\.digest)
            }
        }
    }

    /// The files the depfiles of the steps' (and instances') last successful runs named, by
    /// id, in id order.
    func discoveredSources() -> [(step: String, paths: [String])] {
        state.withLock { state in
            state.index.steps.sorted { $0.key < $1.key }.compactMap { id, record in
                record.discovered.isEmpty ? nil : (id, record.discovered.map(\.path))
            }
        }
    }

    // MARK: - Recording

    /// Holds `step` for a run of it that starts now, until ``record(_:fingerprint:value:startedAt:lock:)``
    /// or the end of the lock.
    func beginRun(of step: IncrementalStep) -> StepRunLock {
        // Where the directory cannot be made, the lock counts the run alone, and the
        // recording meets the problem.
        try? directory.prepare()
        return StepRunLock(path: directory.lock(for: workflowFile), step: step.id)
    }

    /// Records a successful run of `step`, which started at `startedAt` (nanoseconds since
    /// 1970) with what `fingerprint` says, holding `lock`, and gave `value`: stores its
    /// generated files (those of ``ContentStore/keptSizes`` beside the run, as they were read)
    /// and reads its depfile. Records nothing if another run ran the step meanwhile.
    ///
    /// - Throws: a ``CacheProblem`` when a generated file named without a wildcard is
    ///   missing, or the depfile is missing or malformed: the step fails.
    func record(
        _ step: IncrementalStep, fingerprint: StepRecord, value: JSONValue, startedAt: Int64,
        lock: StepRunLock
    ) throws(CacheProblem) {
        let endedAt = FileSystem.now()
        defer { lock.release() }
        guard lock.wasAlone() else {
            note(
                "\(step.id): another run ran it at the same time; this run is not recorded, and the step runs next time"
            )
            return
        }
        var record = fingerprint
        guard let (outputs, kept) = try storeOutputs(of: step, endedAt: endedAt) else { return }
        record.outputs = outputs
        record.discovered = try DepfileSources.read(
            of: step, declared: fingerprint, startedAt: startedAt, files: files)
        record.value = Array(JSONWriter.string(value).utf8)
        makeLatest(record, of: step.id)
        state.withLock { $0.mark(step.id, .confirmed) }
        // Outputs of tens of KiB are stored, and the record then published, beside the run:
        // its dependents start now. A run without them hands nothing over.
        guard !kept.isEmpty else {
            remote?.publish(record, of: step, from: store)
            return
        }
        let published = record
        state.withLock { state in
            for content in kept { state.objectsToWrite[content.digest, default: 0] += 1 }
        }
        writes.add(holding: kept.reduce(0) { $0 + $1.content.count }) { [self] in
            for content in kept { store(content, of: step) }
            remote?.publish(published, of: step, from: store)
        }
    }

    /// Makes `record` the last run of the step `id`. The run it replaces, unless it is the
    /// same run, goes into the history of its inputs, where a later run with those inputs
    /// finds it (sources switched back). The last run is in the index only: a step's first
    /// run writes no history.
    private func makeLatest(_ record: StepRecord, of id: String) {
        let replaced = state.withLock { state -> StepRecord? in
            let before = state.index.steps.record(id)
            if let before, state.marks[id].map({ $0 & Mark.madeByRun.rawValue == 0 }) ?? true {
                state.replaced[id] = before
            }
            state.index.steps[id] = record
            state.mark(id, .changed)
            state.mark(id, .madeByRun)
            return before
        }
        if let replaced, !replaced.isSameRun(as: record) {
            state.withLock { $0.historiesToWrite += 1 }
            writes.add { [self] in
                keepInHistory(replaced, of: id)
                state.withLock { $0.historiesToWrite -= 1 }
            }
        }
    }

    private func keepInHistory(_ record: StepRecord, of id: String) {
        do {
            try store.keep(record)
        } catch {
            note("\(id): its earlier run could not be added to the history: \(error.message)")
        }
    }

    /// Whether the store has the content `digest`, or will once the writes beside the run
    /// are done (whatever puts it back waits for them first).
    private func storeHas(_ digest: Digest) -> Bool {
        state.withLock { $0.objectsToWrite[digest] != nil } || store.contains(digest)
    }

    /// The runs the store keeps for inputs `key`, once the histories given to the writes
    /// beside the run are written, if any is to be.
    private func records(for key: Digest) -> [StepRecord] {
        if state.withLock({ $0.historiesToWrite > 0 }) { writes.wait() }
        return store.records(for: key)
    }

    /// A generated file's content read to be stored beside the run: what its step made,
    /// whatever happens to the file meanwhile.
    private struct KeptContent: Sendable {
        var path: String
        var digest: Digest
        var content: [UInt8]
    }

    /// Stores the files `step` generates, as its command, which ended at `endedAt`, left
    /// them, or reads them and keeps their content (those of ``ContentStore/keptSizes``) to be
    /// stored beside the run; `nil` if one changed after that or while it was read (another
    /// run writing it): then the run must not be recorded.
    private func storeOutputs(of step: IncrementalStep, endedAt: Int64) throws(CacheProblem)
        -> (outputs: [StepRecord.Output], kept: [KeptContent])?
    {
        var outputs: [StepRecord.Output] = []
        var kept: [KeptContent] = []
        // What one step's files may hold in memory: a step of many files stores the rest now.
        var room = BackgroundWrites.mostHeld / 8
        for (path, status) in step.generates.expand(in: step.directory, excluding: directory.path) {
            guard let status else {
                throw CacheProblem(
                    message: "it did not make \(step.display(path)), which it generates")
            }
            let hashedAt = FileSystem.now()
            let stored: ContentStore.Stored
            do {
                if ContentStore.keptSizes.contains(Int(status.size)),
                    let read = try store.readKeepingContent(
                        fileAt: path, upTo: min(ContentStore.keptSizes.upperBound, room))
                {
                    room -= read.content.count
                    stored = read.stored
                    kept.append(
                        KeptContent(path: path, digest: read.stored.digest, content: read.content))
                } else {
                    stored = try store.add(fileAt: path)
                    state.withLock { $0.storedBytes += stored.added }
                }
            } catch {
                // The store cannot keep it: the run still counts, but cannot be put back.
                note("\(step.id): \(step.display(path)) could not be stored: \(error.message)")
                stored = try files.read(path)
            }
            // Times lag a write by a tick at most: a later one is another process's.
            guard stored.isSteady, stored.status.lastChanged <= endedAt else {
                note(
                    "\(step.id): \(step.display(path)) changed after its command ended (another run writing it?); this run is not recorded, and the step runs next time"
                )
                return nil
            }
            let trusted = files.remember(path, stored, hashedAt: hashedAt)
            outputs.append(
                StepRecord.Output(
                    path: path, digest: stored.digest, permissions: stored.status.permissions,
                    status: trusted ? stored.status : nil))
        }
        return (outputs, kept)
    }

    /// Stores the content of a file `step` generated, kept when it was read.
    private func store(_ kept: KeptContent, of step: IncrementalStep) {
        defer {
            state.withLock { state in
                if let count = state.objectsToWrite[kept.digest], count > 1 {
                    state.objectsToWrite[kept.digest] = count - 1
                } else {
                    state.objectsToWrite[kept.digest] = nil
                }
            }
        }
        do {
            let added = try store.add(kept.content, as: kept.digest)
            state.withLock { $0.storedBytes += added }
        } catch {
            // The store cannot keep it: the run still counts, but cannot be put back.
            note("\(step.id): \(step.display(kept.path)) could not be stored: \(error.message)")
        }
    }

    /// Keeps a problem with the state directory, for the run's warnings.
    private func note(_ problem: String) {
        state.withLock { if !$0.problems.contains(problem) { $0.problems.append(problem) } }
    }

    /// The problems writing the state directory met so far (the writes beside the run waited
    /// for), each once; forgets them.
    public func takeProblems() -> [String] {
        writes.wait()
        return state.withLock { state in
            defer { state.problems = [] }
            return state.problems
        }
    }

    // MARK: - Snapshots

    /// Every file the last records of `steps` (about `count` of them) say they read and made,
    /// with its trusted status (`nil` for a source that did not exist); `nil` if a status is
    /// not trusted, or a step's sources come from a wildcard or a directory (their listings
    /// would count too).
    func snapshotFiles(
        of steps: some Sequence<(id: String, sources: IncrementalStep.Files)>, count: Int
    ) -> [(path: String, status: FileStatus?)]? {
        var files: [(path: String, status: FileStatus?)] = []
        var seen: Set<String> = []
        // About three files for each of the `count` steps: room made once, not as the set
        // doubles.
        files.reserveCapacity(3 * count)
        seen.reserveCapacity(3 * count)
        for step in steps {
            guard
                snapshotFiles(
                    of: step.id, sources: step.sources, isNew: { seen.insert($0).inserted },
                    { files.append(($0, $1)) })
            else { return nil }
        }
        return files
    }

    /// Calls `body` with each file the last record of the step `id`, whose declared sources are
    /// `sources`, says it read and made, and its trusted status (`nil` for a source that did not
    /// exist), and tells whether there is such a record and every status is trusted; not for a
    /// step whose sources come from a wildcard or a directory (their listings would count too).
    /// Files `isNew` says are not are passed over, their statuses unasked.
    func snapshotFiles(
        of id: String, sources: IncrementalStep.Files, isNew: (String) -> Bool = { _ in true },
        _ body: (String, FileStatus?) -> Void
    ) -> Bool {
        guard sources.patterns.isEmpty, let record = latestRecord(of: id) else { return false }
        // A step names a source or two: looked for in its record, without a set a step.
        let allRecorded =
            sources.pathCount * record.sources.count <= 64
            ? sources.isEachPath(among: record.sources.map(\.path))
            : sources.paths.allSatisfy(Set(record.sources.map(\.path)).contains)
        guard allRecorded else { return false }
        for list in [record.sources, record.discovered] {
            for source in list where isNew(source.path) {
                guard source.digest != nil else {
                    body(source.path, nil)
                    continue
                }
                guard let status = source.status else { return false }
                body(source.path, status)
            }
        }
        for output in record.outputs where isNew(output.path) {
            guard let status = output.status else { return false }
            body(output.path, status)
        }
        return true
    }

    /// Whether the last record of the step `id` stands for what it was given in this run: the
    /// run decided it up to date, or ran and recorded it.
    func isConfirmed(_ id: String) -> Bool {
        state.withLock { ($0.marks[id] ?? 0) & Mark.confirmed.rawValue != 0 }
    }

    /// The index file's status as this run read it, or last wrote it; `nil` if another run
    /// wrote it since (what this run knows of the records may not be what it holds).
    var indexStatus: FileStatus? {
        indexFile.ownStatus.flatMap { $0 == FileSystem.status(indexFile.path) ? $0 : nil }
    }

    // MARK: - Saving

    /// Whether `id` is a step of the workflow file or of an instance of one of its `forEach`
    /// steps (`each[2]`, `each[2].inner`), whose record is kept.
    private func isKnown(_ id: String) -> Bool {
        if stepIDs.contains(id) { return true }
        let step = ForEach.stepID(ofInstance: id)
        return step != id && forEachIDs.contains(step)
    }

    /// Writes what this run learnt into the index, merged with what other runs wrote since it
    /// was read, holding the index's lock, once the writes beside the run are done; does
    /// nothing if nothing was learnt.
    ///
    /// - Returns: a warning if the state could not be written.
    public func save() -> String? {
        writes.wait()
        let (learnt, steps, stored) = state.withLock {
            ($0.index, $0.marked(.changed), $0.storedBytes)
        }
        guard !steps.isEmpty else { return nil }
        do throws(CacheProblem) {
            try indexFile.save(
                learnt, changed: steps, stored: stored, isKnown: isKnown,
                replaced: keepInHistory,
                read: { [state] id in state.withLock { $0.replaced[id] } })
            state.withLock { state in
                for place in state.marks.keys.indices {
                    state.marks[place: place] &= ~Mark.changed.rawValue
                }
                state.storedBytes = 0
            }
            return nil
        } catch {
            return "the state could not be saved: \(error.message)"
        }
    }
}

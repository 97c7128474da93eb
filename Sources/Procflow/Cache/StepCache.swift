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
/// A file's content is read only when its `stat` (size, modification and change times with
/// nanoseconds, inode) differs from when it was last hashed, or when it had changed less than
/// ``FileStatus/racyWindow`` before that: a file written twice within one tick of the file
/// system's clock can keep its `stat`, so such a digest is not trusted until it is taken again
/// later (git's "racily clean" files).
///
/// What a run records is what its command saw and made, or nothing: a file its depfile names
/// that may have changed while it ran is recorded as unknown (the next run runs the step), and
/// a generated file that changed after the command ended, or while it was being stored
/// (another run writing it), keeps the run from being recorded.
public final class StepCache: @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `state`, a `Locked` mutex; the rest is
    // constant.

    /// The most runs a history keeps for one set of inputs.
    static let historyLimit = 8

    private struct State {
        var index = StateIndex()
        var changedSteps: Set<String> = []
        /// The files hashed in this run, so that a file many steps read is read once.
        var hashed: [String: Hashed] = [:]
        /// Bytes this run added to the store.
        var storedBytes: Int64 = 0
        /// What went wrong writing the state directory during the run.
        var problems: [String] = []
        /// While nothing runs (``whileNothingRuns(_:)``): the statuses seen, so that a file
        /// many steps read is looked at once.
        var statuses: [String: FileStatus?]?
    }

    /// A file hashed in this run, with its status then, and whether that status can be
    /// trusted to tell a change next time.
    private struct Hashed {
        var status: FileStatus
        var digest: Digest
        var isTrusted: Bool
    }

    /// A file as it is now: its digest (`nil` if it does not exist), and its status if that
    /// can be trusted to tell a change next time.
    private struct Observed {
        var digest: Digest?
        var status: FileStatus?
    }

    /// The directory the state is kept in.
    public let directory: StateDirectory
    private let workflowFile: String
    private let store: ContentStore
    /// Every step id of the workflow file: records of other ids, other than the instances of
    /// its `forEach` steps, are dropped when the index is saved.
    private let stepIDs: Set<String>
    /// The ids of its `forEach` steps.
    private let forEachIDs: Set<String>
    /// Whether histories may be used: not after the index was found damaged, so that a
    /// damaged state means a full run.
    private let usesHistory: Bool
    /// The index file's status when it was read, to tell whether another run has written it
    /// since.
    private let loadedStatus: FileStatus?
    /// The records the index held when it was read.
    private let loadedSteps: [String: StepRecord]
    private let state = Locked(State())
    /// What went wrong reading the state, for the run to warn about.
    public let warnings: [String]

    /// Reads the state of the workflow file `workflowFile` (whose steps' ids are `stepIDs`)
    /// from `directory`. A missing state is an empty one; a damaged or foreign one is
    /// ignored, with a warning, and every step runs.
    public init(
        directory: StateDirectory, workflowFile: String, stepIDs: Set<String>,
        forEachIDs: Set<String> = []
    ) {
        self.directory = directory
        self.workflowFile = workflowFile
        self.stepIDs = stepIDs
        self.forEachIDs = forEachIDs
        store = directory.store
        let path = directory.index(for: workflowFile)
        var warnings: [String] = []
        var usesHistory = true
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
                    usesHistory = false
                }
            case .failure(let failure):
                warnings.append(
                    "cannot read the state in \(path): \(failure.message); every incremental step runs"
                )
                usesHistory = false
            }
        }
        if FileSystem.exists(directory.path), !FileSystem.isDirectory(directory.path) {
            warnings.append("the state directory \(directory.path) is not a directory")
        }
        self.usesHistory = usesHistory
        self.warnings = warnings
        loadedSteps = index.steps
        state.withLock { $0.index = index }
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
        let sources = step.sources.expand(
            in: step.directory, excluding: directory.path, status: status(of:)
        ).map {
            file -> StepRecord.Source in
            // Both lists are sorted by path.
            while next < recorded.count, recorded[next].path < file.path { next += 1 }
            let known = next < recorded.count && recorded[next].path == file.path
            let seen = observe(
                file.path, status: file.status, recorded: known ? recorded[next] : nil)
            return StepRecord.Source(path: file.path, digest: seen.digest, status: seen.status)
        }
        let wired = inputs.map { input in
            StepRecord.Input(
                name: input.name, digest: SHA256.hash(Array(JSONWriter.string(input.value).utf8)))
        }
        return StepRecord(
            definition: step.definition, environment: step.environment,
            directory: step.directory, inputs: wired.sorted { $0.name < $1.name },
            sources: sources, discovered: [], outputs: [], value: [])
    }

    /// Whether `step` must run, given its wired `inputs`, and why; or the record whose
    /// outcome stands, and which of its generated files must be put back first.
    func decide(_ step: IncrementalStep, inputs: [(name: String, value: JSONValue)])
        -> CacheDecision
    {
        let latest = state.withLock { $0.index.steps[step.id] }
        let current = fingerprint(step, inputs: inputs, latest: latest)
        var outputProblem: String?
        if let latest, latest.hasInputs(of: current) {
            var refreshed = latest
            refreshed.sources = current.sources
            if let discovered = unchanged(latest.discovered) {
                refreshed.discovered = discovered
                let differing = check(&refreshed.outputs)
                if differing.isEmpty { return .upToDate(refreshed, isNew: refreshed != latest) }
                if differing.allSatisfy({ store.contains($0.digest) }) {
                    return .restore(refreshed, differing)
                }
                outputProblem = describe(differing, of: step)
            }
        }
        if usesHistory {
            for var record in history(of: current.key) {
                if let latest, record.isSameRun(as: latest) { continue }
                guard let discovered = unchanged(record.discovered) else { continue }
                record.sources = current.sources
                record.discovered = discovered
                let differing = check(&record.outputs)
                if differing.allSatisfy({ store.contains($0.digest) }) {
                    return differing.isEmpty
                        ? .upToDate(record, isNew: true) : .restore(record, differing)
                }
            }
        }
        let reason =
            outputProblem ?? latest.map { explain(current, against: $0, of: step) }
            ?? "no earlier run"
        return .run(reason: reason, fingerprint: current)
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
        case .upToDate(_, isNew: false): return nil
        case .upToDate(let chosen, isNew: true):
            record = chosen
        case .restore(let chosen, let files):
            record = chosen
            var kept: [String] = []
            for file in files {
                let current = observe(
                    file.path, status: FileSystem.status(file.path), recorded: nil)
                if let digest = current.digest, digest != Self.directoryDigest,
                    !store.contains(digest), let edited = try? store.add(fileAt: file.path)
                {
                    kept.append("\(step.display(file.path)) as \(store.path(of: edited.digest))")
                }
                try store.restore(file.digest, to: file.path, permissions: file.permissions)
            }
            // Put back just now: their statuses are not to be trusted yet.
            let restored = Set(files.map(\.path))
            for index in record.outputs.indices where restored.contains(record.outputs[index].path)
            {
                record.outputs[index].status = nil
            }
            note = "restored " + files.map { step.display($0.path) }.joined(separator: ", ")
            if !kept.isEmpty {
                note! += "; the copy changed by hand is kept: " + kept.joined(separator: ", ")
            }
        }
        makeLatest(record, of: step.id)
        return note
    }

    /// The output a step's record gives, parsed.
    func value(of record: StepRecord) -> JSONValue? {
        if record.value == Self.null { return .null }
        return try? JSONParser.parse(record.value).plain
    }

    private static let null = Array("null".utf8)

    /// The record of the last successful run of the step `id`.
    func latestRecord(of id: String) -> StepRecord? {
        state.withLock { $0.index.steps[id] }
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
    /// generated files and reads its depfile. Records nothing if another run ran the step
    /// meanwhile.
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
        guard let outputs = try storeOutputs(of: step, endedAt: endedAt) else { return }
        record.outputs = outputs
        record.discovered = try readDepfile(of: step, declared: fingerprint, startedAt: startedAt)
        record.value = Array(JSONWriter.string(value).utf8)
        makeLatest(record, of: step.id)
    }

    /// Makes `record` the last run of the step `id`. The run it replaces, unless it is the
    /// same run, goes into the history of its inputs, where a later run with those inputs
    /// finds it (sources switched back). The last run is in the index only: a step's first
    /// run writes no history.
    private func makeLatest(_ record: StepRecord, of id: String) {
        let replaced = state.withLock { state -> StepRecord? in
            defer {
                state.index.steps[id] = record
                state.changedSteps.insert(id)
            }
            return state.index.steps[id]
        }
        if let replaced, !replaced.isSameRun(as: record) { keepInHistory(replaced, of: id) }
    }

    private func keepInHistory(_ record: StepRecord, of id: String) {
        do {
            try addToHistory(record)
        } catch {
            note("\(id): its earlier run could not be added to the history: \(error.message)")
        }
    }

    /// Stores the files `step` generates, as its command, which ended at `endedAt`, left
    /// them; `nil` if one changed after that or while it was read (another run writing it):
    /// then the run must not be recorded.
    private func storeOutputs(of step: IncrementalStep, endedAt: Int64) throws(CacheProblem)
        -> [StepRecord.Output]?
    {
        var outputs: [StepRecord.Output] = []
        for (path, status) in step.generates.expand(in: step.directory, excluding: directory.path) {
            guard status != nil else {
                throw CacheProblem(
                    message: "it did not make \(step.display(path)), which it generates")
            }
            let hashedAt = FileSystem.now()
            let stored: ContentStore.Stored
            do {
                try directory.prepare()
                stored = try store.add(fileAt: path)
            } catch {
                // The store cannot keep it: the run still counts, but cannot be put back.
                note("\(step.id): \(step.display(path)) could not be stored: \(error.message)")
                stored = try store.add(fileAt: path, store: false)
            }
            // Times lag a write by a tick at most: a later one is another process's.
            guard stored.isSteady, stored.status.lastChanged <= endedAt else {
                note(
                    "\(step.id): \(step.display(path)) changed after its command ended (another run writing it?); this run is not recorded, and the step runs next time"
                )
                return nil
            }
            let trusted = remember(path, stored, hashedAt: hashedAt)
            state.withLock { $0.storedBytes += stored.added }
            outputs.append(
                StepRecord.Output(
                    path: path, digest: stored.digest, permissions: stored.status.permissions,
                    status: trusted ? stored.status : nil))
        }
        return outputs
    }

    private func readDepfile(of step: IncrementalStep, declared: StepRecord, startedAt: Int64)
        throws(CacheProblem) -> [StepRecord.Source]
    {
        guard let depfile = step.depfile else { return [] }
        let bytes: [UInt8]
        switch POSIXIO.readFile(depfile) {
        case .success(let contents): bytes = contents
        case .failure(let failure):
            throw CacheProblem(
                message: "cannot read its depfile \(step.display(depfile)): \(failure.message)")
        }
        let names: [String]
        do {
            names = try Depfile.prerequisites(in: bytes)
        } catch {
            throw CacheProblem(
                message:
                    "its depfile \(step.display(depfile)) is not in Makefile syntax: \(error.message)"
            )
        }
        let declaredPaths = Set(declared.sources.map(\.path))
        var discovered: [StepRecord.Source] = []
        for path in Set(names.map { resolve($0, in: step.directory) }).sorted()
        where !declaredPaths.contains(path) {
            let status = FileSystem.status(path)
            // May have changed while the step ran: the next run must not take it for what
            // was read.
            if let status, status.mayHaveChanged(since: startedAt) {
                discovered.append(StepRecord.Source(path: path, digest: .unknown))
                continue
            }
            let seen = observe(path, status: status, recorded: nil)
            discovered.append(
                StepRecord.Source(path: path, digest: seen.digest, status: seen.status))
        }
        return discovered
    }

    /// Keeps a problem with the state directory, for the run's warnings.
    private func note(_ problem: String) {
        state.withLock { if !$0.problems.contains(problem) { $0.problems.append(problem) } }
    }

    /// The problems writing the state directory met so far, each once; forgets them.
    public func takeProblems() -> [String] {
        state.withLock { state in
            defer { state.problems = [] }
            return state.problems
        }
    }

    // MARK: - Files

    /// Calls `body`, during which no file changes (nothing runs): each file's status is
    /// looked up once.
    func whileNothingRuns<T>(_ body: () -> T) -> T {
        state.withLock { $0.statuses = [:] }
        defer { state.withLock { $0.statuses = nil } }
        return body()
    }

    /// The status of `path`, from the statuses seen if nothing runs.
    private func status(of path: String) -> FileStatus? {
        if let seen = state.withLock({ $0.statuses?[path] }) { return seen }
        let status = FileSystem.status(path)
        state.withLock { $0.statuses?[path] = .some(status) }
        return status
    }

    /// The file at `path`, whose status is `status` (`nil` if there is none): read only if
    /// its status is not the trusted one `recorded` has, nor that of a reading in this run.
    private func observe(_ path: String, status: FileStatus?, recorded: StepRecord.Source?)
        -> Observed
    {
        guard let status else { return Observed(digest: nil, status: nil) }
        if status.isDirectory { return Observed(digest: Self.directoryDigest, status: nil) }
        if let recorded, let known = recorded.status, known.looksUnchanged(from: status) {
            if let digest = recorded.digest {
                // For the rest of the run: other steps, and this one's record, may ask again.
                state.withLock {
                    $0.hashed[path] = Hashed(status: known, digest: digest, isTrusted: true)
                }
            }
            return Observed(digest: recorded.digest, status: known)
        }
        if let hashed = state.withLock({ $0.hashed[path] }),
            hashed.status.looksUnchanged(from: status)
        {
            return Observed(digest: hashed.digest, status: hashed.isTrusted ? status : nil)
        }
        let hashedAt = FileSystem.now()
        guard let read = try? store.add(fileAt: path, store: false) else {
            return Observed(digest: .unknown, status: nil)
        }
        let trusted = remember(path, read, hashedAt: hashedAt)
        return Observed(digest: read.digest, status: trusted ? read.status : nil)
    }

    static let directoryDigest = SHA256.hash(Array("a directory".utf8))

    /// Keeps a file's digest for the rest of the run; tells whether its status can be trusted
    /// to tell a change next time: not if the file changed while it was read, or shortly
    /// before.
    private func remember(_ path: String, _ read: ContentStore.Stored, hashedAt: Int64) -> Bool {
        let trusted = read.isSteady && read.status.isSettled(at: hashedAt)
        state.withLock { state in
            state.hashed[path] = Hashed(
                status: read.status, digest: read.digest, isTrusted: trusted)
        }
        return trusted
    }

    /// `files` with their statuses brought up to date, if none changed content; `nil` if one
    /// did.
    private func unchanged(_ files: [StepRecord.Source]) -> [StepRecord.Source]? {
        var result = files
        for index in files.indices {
            let file = files[index]
            let seen = observe(file.path, status: status(of: file.path), recorded: file)
            guard seen.digest == file.digest else { return nil }
            result[index].status = seen.status
        }
        return result
    }

    /// Brings the statuses of `outputs` up to date; returns those missing or no longer what
    /// was recorded.
    private func check(_ outputs: inout [StepRecord.Output]) -> [StepRecord.Output] {
        var differing: [StepRecord.Output] = []
        for index in outputs.indices {
            let output = outputs[index]
            let seen = observe(
                output.path, status: status(of: output.path),
                recorded: StepRecord.Source(
                    path: output.path, digest: output.digest, status: output.status))
            if seen.digest == output.digest {
                outputs[index].status = seen.status
            } else {
                differing.append(output)
            }
        }
        return differing
    }

    // MARK: - History

    private func history(of key: Digest) -> [StepRecord] {
        guard case .success(let bytes) = POSIXIO.readFile(directory.history(of: key)) else {
            return []
        }
        return (try? StateFile.unwrap(bytes, as: .history, Self.readRecords)) ?? []
    }

    private static func readRecords(_ reader: inout BinaryReader) throws(BinaryReader.Truncated)
        -> [StepRecord]
    {
        var records: [StepRecord] = []
        for _ in 0..<(try reader.count(minimumSize: 100)) {
            records.append(try StepRecord(from: &reader))
        }
        return records
    }

    private func addToHistory(_ record: StepRecord) throws(CacheProblem) {
        let key = record.key
        var records = [record] + history(of: key).filter { $0 != record }
        records = Array(records.prefix(Self.historyLimit))
        var writer = BinaryWriter()
        writer.write(UInt32(records.count))
        for record in records { record.write(to: &writer) }
        try StateDirectory.write(
            StateFile.wrap(writer.bytes, as: .history), to: directory.history(of: key),
            temporary: directory.temporary)
    }

    // MARK: - Explaining

    private func explain(
        _ current: StepRecord, against latest: StepRecord, of step: IncrementalStep
    )
        -> String
    {
        var reasons: [String] = []
        if current.definition != latest.definition { reasons.append(step.definitionName) }
        if current.directory != latest.directory { reasons.append("working directory changed") }
        if current.environment != latest.environment { reasons.append("environment changed") }
        let before = Dictionary(latest.inputs.map { ($0.name, $0.digest) }) { first, _ in first }
        for input in current.inputs where before[input.name] != input.digest {
            reasons.append(
                input.name == "stdin" ? "its input changed" : "input \(input.name) changed")
        }
        reasons += compare(current.sources, with: latest.sources, of: step)
        if reasons.isEmpty {
            for file in latest.discovered {
                let seen = observe(file.path, status: status(of: file.path), recorded: file)
                guard seen.digest != file.digest else { continue }
                reasons.append(
                    seen.digest == nil
                        ? "source \(step.display(file.path)) was removed"
                        : "source \(step.display(file.path)) changed")
            }
        }
        guard !reasons.isEmpty else { return "its earlier outcome could not be put back" }
        let shown = reasons.prefix(3).joined(separator: "; ")
        return reasons.count > 3 ? "\(shown) (and \(reasons.count - 3) more)" : shown
    }

    private func compare(
        _ current: [StepRecord.Source], with earlier: [StepRecord.Source], of step: IncrementalStep
    ) -> [String] {
        let before = Dictionary(earlier.map { ($0.path, $0.digest) }) { first, _ in first }
        var reasons: [String] = []
        for source in current {
            let name = step.display(source.path)
            switch (before[source.path], source.digest) {
            case (nil, _): reasons.append("source \(name) is new")
            case (.some(nil), .some): reasons.append("source \(name) appeared")
            case (.some(.some), nil): reasons.append("source \(name) is missing")
            case (.some(let old), let new) where old != new:
                reasons.append("source \(name) changed")
            default: break
            }
        }
        let now = Set(current.map(\.path))
        for source in earlier where !now.contains(source.path) {
            reasons.append("source \(step.display(source.path)) is gone")
        }
        return reasons
    }

    private func describe(_ outputs: [StepRecord.Output], of step: IncrementalStep) -> String {
        let output = outputs[0]
        let name = step.display(output.path)
        let what =
            FileSystem.exists(output.path) ? "\(name) changed since it was made" : "\(name) missing"
        return outputs.count > 1 ? "\(what) (and \(outputs.count - 1) more)" : what
    }

    // MARK: - Snapshots

    /// Every file the last records of `steps` say they read and made, with its trusted
    /// status (`nil` for a source that did not exist); `nil` if a status is not trusted, or
    /// a step's sources come from a wildcard or a directory (their listings would count too).
    func snapshotFiles(of steps: [IncrementalStep]) -> [(path: String, status: FileStatus?)]? {
        var files: [(path: String, status: FileStatus?)] = []
        var seen: Set<String> = []
        for step in steps {
            guard step.sources.patterns.isEmpty, let record = latestRecord(of: step.id) else {
                return nil
            }
            let recorded = Set(record.sources.map(\.path))
            guard step.sources.paths.allSatisfy(recorded.contains) else { return nil }
            for source in record.sources + record.discovered where seen.insert(source.path).inserted
            {
                guard source.digest != nil else {
                    files.append((source.path, nil))
                    continue
                }
                guard let status = source.status else { return nil }
                files.append((source.path, status))
            }
            for output in record.outputs where seen.insert(output.path).inserted {
                guard let status = output.status else { return nil }
                files.append((output.path, status))
            }
        }
        return files
    }

    /// The index file's status now.
    var indexStatus: FileStatus? {
        FileSystem.status(directory.index(for: workflowFile))
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
    /// was read, holding the index's lock; does nothing if nothing was learnt.
    ///
    /// - Returns: a warning if the state could not be written.
    public func save() -> String? {
        let (learnt, steps, stored) = state.withLock {
            ($0.index, $0.changedSteps, $0.storedBytes)
        }
        guard !steps.isEmpty else { return nil }
        do throws(CacheProblem) {
            try directory.prepare()
            let lock = IndexLock(path: directory.lock(for: workflowFile))
            defer { lock.release() }
            let path = directory.index(for: workflowFile)
            var merged = learnt
            if let now = FileSystem.status(path), now != loadedStatus,
                case .success(let bytes) = POSIXIO.readFile(path),
                let written = try? StateIndex(decoding: bytes)
            {
                merged = written
                for id in steps {
                    // Another run's record, written since this run read the index, is
                    // replaced: it stays findable in the history.
                    if let theirs = written.steps[id], theirs != loadedSteps[id],
                        let ours = learnt.steps[id], !theirs.isSameRun(as: ours)
                    {
                        keepInHistory(theirs, of: id)
                    }
                    merged.steps[id] = learnt.steps[id]
                }
            }
            merged.steps = merged.steps.filter { isKnown($0.key) }
            merged.storeSize += stored
            if merged.storeSize > StateDirectory.defaultMaximumSize {
                // Down to three quarters, so that the next runs do not measure it again.
                merged.storeSize =
                    directory.prune(
                        toAtMost: StateDirectory.defaultMaximumSize / 4 * 3
                    ).remaining
            }
            try StateDirectory.write(merged.encoded(), to: path, temporary: directory.temporary)
            state.withLock {
                $0.changedSteps = []
                $0.storedBytes = 0
            }
            return nil
        } catch {
            return "the state could not be saved: \(error.message)"
        }
    }
}

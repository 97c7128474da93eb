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
/// ``racyWindow`` before that: a file written twice within one tick of the file system's clock
/// can keep its `stat`, so such a digest is not trusted until it is taken again later (git's
/// "racily clean" files).
public final class StepCache: @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `state`, a `Locked` mutex; the rest is
    // constant.

    /// How long after a file's modification its digest starts to be trusted, in nanoseconds.
    static let racyWindow: Int64 = 1_000_000_000
    /// The most runs a history keeps for one set of inputs.
    static let historyLimit = 8

    private struct State {
        var index = StateIndex()
        var changedSteps: Set<String> = []
        var changedFiles: Set<String> = []
        /// Bytes this run added to the store.
        var storedBytes: Int64 = 0
    }

    /// The directory the state is kept in.
    public let directory: StateDirectory
    private let workflowFile: String
    private let store: ContentStore
    /// Every step id of the workflow file: records of other ids are dropped when the index is
    /// saved.
    private let stepIDs: Set<String>
    /// Whether histories may be used: not after the index was found damaged, so that a
    /// damaged state means a full run.
    private let usesHistory: Bool
    /// The index file's status when it was read, to tell whether another run has written it
    /// since.
    private let loadedStatus: FileStatus?
    private let state = Locked(State())
    /// What went wrong reading the state, for the run to warn about.
    public let warnings: [String]

    /// Reads the state of the workflow file `workflowFile` (whose steps' ids are `stepIDs`)
    /// from `directory`. A missing state is an empty one; a damaged or foreign one is
    /// ignored, with a warning, and every step runs.
    public init(directory: StateDirectory, workflowFile: String, stepIDs: Set<String>) {
        self.directory = directory
        self.workflowFile = workflowFile
        self.stepIDs = stepIDs
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
        state.withLock { $0.index = index }
    }

    // MARK: - Deciding

    /// What is known of `step` before it runs, given its wired `inputs` (`stdin` or
    /// environment variable names with their values): a record without outcome.
    func fingerprint(_ step: IncrementalStep, inputs: [(name: String, value: JSONValue)])
        -> StepRecord
    {
        var sources: [StepRecord.Source] = []
        var seen: Set<String> = []
        for pattern in step.sources {
            for path in pattern.expand(in: step.directory, excluding: directory.path)
            where seen.insert(path).inserted {
                sources.append(StepRecord.Source(path: path, digest: digest(of: path)))
            }
        }
        if step.sources.count > 1 { sources.sort { $0.path < $1.path } }
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
        let current = fingerprint(step, inputs: inputs)
        let latest = state.withLock { $0.index.steps[step.id] }
        var outputProblem: String?
        if let latest, latest.hasInputs(of: current), changedSources(latest.discovered).isEmpty {
            let differing = differingOutputs(latest.outputs)
            if differing.isEmpty { return .upToDate(latest) }
            if differing.allSatisfy({ store.contains($0.digest) }) {
                return .restore(latest, differing)
            }
            outputProblem = describe(differing, of: step)
        }
        if usesHistory {
            for record in history(of: current.key) where record != latest {
                guard changedSources(record.discovered).isEmpty else { continue }
                let differing = differingOutputs(record.outputs)
                if differing.allSatisfy({ store.contains($0.digest) }) {
                    return differing.isEmpty ? .upToDate(record) : .restore(record, differing)
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
        let record: StepRecord
        var note: String?
        switch decision {
        case .run: return nil
        case .upToDate(let latest):
            record = latest
        case .restore(let chosen, let files):
            record = chosen
            var kept: [String] = []
            for file in files {
                if let current = digest(of: file.path), current != Self.directoryDigest,
                    !store.contains(current), let edited = try? store.add(fileAt: file.path)
                {
                    kept.append("\(step.display(file.path)) as \(store.path(of: edited.digest))")
                }
                try store.restore(file.digest, to: file.path, permissions: file.permissions)
            }
            note = "restored " + files.map { step.display($0.path) }.joined(separator: ", ")
            if !kept.isEmpty {
                note! += "; the copy changed by hand is kept: " + kept.joined(separator: ", ")
            }
        }
        state.withLock { state in
            if state.index.steps[step.id] != record {
                state.index.steps[step.id] = record
                state.changedSteps.insert(step.id)
            }
        }
        return note
    }

    /// The output a step's record gives, parsed.
    func value(of record: StepRecord) -> JSONValue? {
        try? JSONParser.parse(record.value).plain
    }

    /// The record of the last successful run of the step `id`.
    func latestRecord(of id: String) -> StepRecord? {
        state.withLock { $0.index.steps[id] }
    }

    // MARK: - Recording

    /// Records a successful run of `step`, which started at `startedAt` (nanoseconds since
    /// 1970) with what `fingerprint` says, and gave `value`: stores its generated files and
    /// reads its depfile.
    ///
    /// - Throws: a ``CacheProblem`` when a generated file named without a wildcard is
    ///   missing, or the depfile is missing or malformed: the step fails.
    func record(
        _ step: IncrementalStep, fingerprint: StepRecord, value: JSONValue, startedAt: Int64
    ) throws(CacheProblem) {
        try directory.prepare()
        var record = fingerprint
        record.outputs = try storeOutputs(of: step)
        record.discovered = try readDepfile(of: step, declared: fingerprint, startedAt: startedAt)
        record.value = Array(JSONWriter.string(value).utf8)
        state.withLock { state in
            state.index.steps[step.id] = record
            state.changedSteps.insert(step.id)
        }
        try? addToHistory(record)
    }

    private func storeOutputs(of step: IncrementalStep) throws(CacheProblem)
        -> [StepRecord.Output]
    {
        var outputs: [StepRecord.Output] = []
        var seen: Set<String> = []
        for pattern in step.generates {
            for path in pattern.expand(in: step.directory, excluding: directory.path)
            where seen.insert(path).inserted {
                guard let status = FileSystem.status(path) else {
                    throw CacheProblem(
                        message: "it did not make \(step.display(path)), which it generates")
                }
                if status.isDirectory { continue }
                let stored = try store.add(fileAt: path)
                state.withLock { $0.storedBytes += stored.added }
                remember(path, stored, hashedAt: FileSystem.now())
                outputs.append(
                    StepRecord.Output(
                        path: path, digest: stored.digest,
                        permissions: stored.status.permissions))
            }
        }
        return outputs.sorted { $0.path < $1.path }
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
            // Changed while the step ran: the next run must not take it for what was read.
            if let status = FileSystem.status(path), status.modified > startedAt {
                discovered.append(StepRecord.Source(path: path, digest: .unknown))
            } else {
                discovered.append(StepRecord.Source(path: path, digest: digest(of: path)))
            }
        }
        return discovered
    }

    // MARK: - Files

    /// The digest of the file at `path`, read only if its status changed since it was last
    /// read; `nil` if there is no file.
    func digest(of path: String) -> Digest? {
        guard let status = FileSystem.status(path) else { return nil }
        if status.isDirectory { return Self.directoryDigest }
        let known = state.withLock { $0.index.files[path] }
        if let known, known.status.looksUnchanged(from: status) { return known.digest }
        let hashedAt = FileSystem.now()
        guard let read = try? store.add(fileAt: path, store: false) else { return .unknown }
        remember(path, read, hashedAt: hashedAt)
        return read.digest
    }

    static let directoryDigest = SHA256.hash(Array("a directory".utf8))

    /// Keeps a file's digest for the next run, if it can be trusted.
    private func remember(_ path: String, _ read: ContentStore.Stored, hashedAt: Int64) {
        guard read.isSteady, hashedAt - read.status.modified > Self.racyWindow,
            hashedAt - read.status.changed > Self.racyWindow
        else { return }
        state.withLock { state in
            state.index.files[path] = StateIndex.FileEntry(status: read.status, digest: read.digest)
            state.changedFiles.insert(path)
        }
    }

    /// The files whose content is no longer what `files` recorded.
    private func changedSources(_ files: [StepRecord.Source]) -> [StepRecord.Source] {
        files.filter { digest(of: $0.path) != $0.digest }
    }

    /// The generated files that are missing or no longer what `outputs` recorded.
    private func differingOutputs(_ outputs: [StepRecord.Output]) -> [StepRecord.Output] {
        outputs.filter { digest(of: $0.path) != $0.digest }
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
            reasons += changedSources(latest.discovered).map {
                FileSystem.exists($0.path)
                    ? "source \(step.display($0.path)) changed"
                    : "source \(step.display($0.path)) was removed"
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

    // MARK: - Saving

    /// Writes what this run learnt into the index, merged with what other runs wrote since it
    /// was read, holding the index's lock; does nothing if nothing was learnt.
    ///
    /// - Returns: a warning if the state could not be written.
    public func save() -> String? {
        let (learnt, steps, files, stored) = state.withLock {
            ($0.index, $0.changedSteps, $0.changedFiles, $0.storedBytes)
        }
        guard !steps.isEmpty || !files.isEmpty else { return nil }
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
                for id in steps { merged.steps[id] = learnt.steps[id] }
                for file in files { merged.files[file] = learnt.files[file] }
            }
            merged.steps = merged.steps.filter { stepIDs.contains($0.key) }
            var used: Set<String> = []
            for record in merged.steps.values {
                for source in record.sources { used.insert(source.path) }
                for source in record.discovered { used.insert(source.path) }
                for output in record.outputs { used.insert(output.path) }
            }
            merged.files = merged.files.filter { used.contains($0.key) }
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
                $0.changedFiles = []
                $0.storedBytes = 0
            }
            return nil
        } catch {
            return "the state could not be saved: \(error.message)"
        }
    }
}

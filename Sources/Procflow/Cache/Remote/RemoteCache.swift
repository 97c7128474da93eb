import Dispatch
import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A remote cache layered on the state directory: a step not up to date here takes the
/// outcome another machine recorded for the same inputs (its files fetched into the local
/// store, each checked against its digest), and a step that ran publishes its outcome.
///
/// Never wrong, never fatal: a record that names a path outside the step's working directory
/// or its `generates`, or whose files do not match their digests, is refused and the step
/// runs; the first failure of the server (down, refusing, 5xx, too slow, cut short) is one
/// warning, and the run goes on without it. Uploads run beside the build, a few at once, and
/// are waited for at the end, for a bounded time.
public final class RemoteCache: Sendable {
    private struct State {
        /// Why the remote is no longer asked; `nil` while it is.
        var failure: String?
        /// The sizes of the contents records named, for their downloads.
        var sizes: [Digest: Int64] = [:]
        /// What the remote answered for each key asked for, so that a step asked about twice
        /// (before the run, and as it is about to run) is looked up once.
        var answers: [Digest: Answer] = [:]
        /// The keys being asked for now, with what their askers wait on.
        var asking: [Digest: DispatchGroup] = [:]
        /// The steps found, and not found, by id: a step is counted once.
        var hits: Set<String> = []
        var misses: Set<String> = []
        var published = 0
        /// Records refused, by reason: said once each.
        var refusals: [String] = []
    }

    /// What the remote keeps under one key.
    private enum Answer {
        /// Its runs (none: a miss).
        case runs([RemoteRecord])
        /// A document procflow must not use, and why.
        case refused(String)
    }

    /// Uploads at once.
    static let uploadSlots = 4
    /// Records asked for at once in the background.
    static let lookupSlots = 8
    /// Contents this large are uploaded only if the server lacks them (a `HEAD` first);
    /// smaller ones are sent whole, which costs less than asking.
    static let askBeforeUploading: Int64 = 1 << 20

    let settings: RemoteCacheSettings
    private let client: HTTPCacheClient
    /// The workflow's directory: paths in keys and records are relative to it.
    private let root: String
    private let state = Locked(State())
    private let uploads = DispatchGroup()
    private let uploading: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = RemoteCache.uploadSlots
        return queue
    }()
    private let looking: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = RemoteCache.lookupSlots
        return queue
    }()

    /// The remote `settings` name, for a workflow in `root`.
    public init(settings: RemoteCacheSettings, root: String) {
        self.settings = settings
        self.root = root
        client = HTTPCacheClient(settings: settings)
    }

    /// Whether the remote is still asked.
    var isUsable: Bool { state.withLock { $0.failure == nil } }

    // MARK: - Looking up

    /// The runs another machine recorded for `step` with the inputs `current` has, as local
    /// records (paths made absolute, statuses unknown), newest first; empty for a miss. With
    /// `waiting` false, only what is known already: `nil` if the remote has not answered yet
    /// (it is then asked in the background, for the step's turn to run).
    func lookup(_ step: IncrementalStep, current: StepRecord, waiting: Bool = true)
        -> [StepRecord]?
    {
        guard isUsable else { return [] }
        switch answer(for: current.remoteKey(root: root), waiting: waiting) {
        case nil: return nil
        case .refused(let reason)?:
            refuse("a record for \(step.id) was refused: \(reason)")
            return []
        case .runs(let runs)?:
            do throws(RemoteRecord.Problem) {
                var records: [StepRecord] = []
                for run in runs { records.append(try localRecord(run, of: step, current: current)) }
                return records
            } catch {
                refuse("a record for \(step.id) was refused: \(error.message)")
                return []
            }
        }
    }

    /// What the remote keeps under `key`, asked once; with `waiting` false, `nil` until it has
    /// answered (the question then goes out in the background).
    private func answer(for key: Digest, waiting: Bool) -> Answer? {
        let (known, group, asks) = state.withLock { state -> (Answer?, DispatchGroup?, Bool) in
            if let answer = state.answers[key] { return (answer, nil, false) }
            if let group = state.asking[key] { return (nil, group, false) }
            let group = DispatchGroup()
            group.enter()
            state.asking[key] = group
            return (nil, group, true)
        }
        if let known { return known }
        if asks {
            if waiting { ask(key) } else { looking.addOperation { [self] in ask(key) } }
        }
        guard waiting, let group else { return nil }
        group.wait()
        return state.withLock { $0.answers[key] }
    }

    /// Asks the remote for the record under `key`, and tells those waiting.
    private func ask(_ key: Digest) {
        var answer = Answer.runs([])
        if isUsable {
            switch client.record(key) {
            case .failure(let failure): fail(failure)
            case .success(nil): break
            case .success(let document?):
                do throws(RemoteRecord.Problem) {
                    answer = .runs(try RemoteRecord.runs(in: document))
                } catch {
                    answer = .refused(error.message)
                }
            }
        }
        let group = state.withLock { state -> DispatchGroup? in
            state.answers[key] = answer
            return state.asking.removeValue(forKey: key)
        }
        group?.leave()
    }

    /// `run` as a record of `step` on this machine, if every file it names is one the step
    /// generates.
    private func localRecord(_ run: RemoteRecord, of step: IncrementalStep, current: StepRecord)
        throws(RemoteRecord.Problem) -> StepRecord
    {
        var record = current
        record.outputs = []
        for output in run.outputs {
            let path = resolve(output.path, in: step.directory)
            guard step.generates.contains(path, in: step.directory) else {
                throw RemoteRecord.Problem(
                    message: "it names \(output.path), which the step does not generate")
            }
            record.outputs.append(
                StepRecord.Output(path: path, digest: output.digest, permissions: output.mode))
            state.withLock { $0.sizes[output.digest] = output.size }
        }
        record.discovered = run.discovered.map {
            StepRecord.Source(path: resolve($0.path, in: step.directory), digest: $0.digest)
        }
        record.value = Array(JSONWriter.string(run.value).utf8)
        return record
    }

    /// Notes whether the remote had what the step `id` needed; the last answer counts.
    func count(_ id: String, hit: Bool) {
        state.withLock { state in
            if hit {
                state.hits.insert(id)
                state.misses.remove(id)
            } else {
                state.misses.insert(id)
                state.hits.remove(id)
            }
        }
    }

    /// Fetches the contents of `outputs` that `store` does not hold, checking each against
    /// its digest.
    ///
    /// - Throws: a ``CacheProblem`` when one cannot be fetched: then the step runs.
    func fetch(_ outputs: [StepRecord.Output], into store: LocalStore) throws(CacheProblem) {
        for output in outputs where !store.contains(output.digest) {
            guard isUsable, let size = state.withLock({ $0.sizes[output.digest] }) else {
                throw CacheProblem(message: "the remote cache is not available")
            }
            var failure: HTTPCacheClient.Failure?
            var found = false
            let kept = try store.receive(output.digest) { descriptor in
                switch client.download(output.digest, size: size, to: descriptor) {
                case .success(let there): found = there
                case .failure(let error): failure = error
                }
                return found
            }
            if let failure { fail(failure) }
            guard kept else {
                throw CacheProblem(
                    message: "the remote cache does not hold \(shown(output.path, from: root))")
            }
        }
    }

    // MARK: - Publishing

    /// Publishes `record`, the successful run of `step`, in the background: its files (those
    /// the server lacks), then the record among the others for its inputs.
    func publish(_ record: StepRecord, of step: IncrementalStep, from store: LocalStore) {
        guard settings.mode == .readwrite, isUsable else { return }
        var outputs: [RemoteRecord.Output] = []
        for output in record.outputs {
            let stored = store.location(of: output.digest)
            guard let status = FileSystem.status(stored) else { return }
            outputs.append(
                RemoteRecord.Output(
                    path: relativePath(of: output.path, from: step.directory),
                    digest: output.digest, size: status.size, mode: output.permissions))
        }
        let run = RemoteRecord(
            outputs: outputs,
            discovered: record.discovered.map { file in
                let inside = file.path.hasPrefix(root + "/")
                return RemoteRecord.Discovered(
                    path: inside ? relativePath(of: file.path, from: step.directory) : file.path,
                    digest: file.digest)
            },
            value: (try? JSONParser.parse(record.value).plain) ?? .null)
        let key = record.remoteKey(root: root)
        uploads.enter()
        uploading.addOperation { [self] in
            defer { uploads.leave() }
            upload(run, under: key, from: store)
        }
    }

    private func upload(_ run: RemoteRecord, under key: Digest, from store: LocalStore) {
        for output in run.outputs {
            guard isUsable else { return }
            if output.size >= Self.askBeforeUploading {
                switch client.hasContent(output.digest) {
                case .failure(let failure): return fail(failure)
                case .success(true): continue
                case .success(false): break
                }
            }
            let descriptor = open(store.location(of: output.digest), O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            if case .failure(let failure) = client.upload(
                output.digest, from: descriptor, size: output.size)
            {
                return fail(failure)
            }
        }
        guard isUsable else { return }
        // The runs already there (asked again only if this run did not find the key empty).
        var runs = [run]
        let foundEmpty =
            state.withLock { state in
                if case .runs(let runs)? = state.answers[key] { return runs.isEmpty }
                return false
            }
        if !foundEmpty, case .success(let document?) = client.record(key),
            let earlier = try? RemoteRecord.runs(in: document)
        {
            runs += earlier.filter { $0 != run }
        }
        switch client.storeRecord(
            RemoteRecord.document(Array(runs.prefix(RemoteRecord.runLimit))), under: key)
        {
        case .failure(let failure): fail(failure)
        case .success: state.withLock { $0.published += 1 }
        }
    }

    // MARK: - Ending

    /// Waits for the uploads, at most `seconds` (none after an interrupt); returns the
    /// warnings of the run (the server's failure, refused records) and a line saying what
    /// the remote did.
    func finish(waitingUpTo seconds: TimeInterval) -> (warnings: [String], summary: String) {
        let waited = uploads.wait(timeout: .now() + max(0, seconds)) == .success
        let traffic = client.totals
        return state.withLock { state in
            var warnings = state.refusals
            if let failure = state.failure { warnings.insert(failure, at: 0) }
            if !waited { warnings.append("uploads to the remote cache did not finish in time") }
            let summary =
                "remote cache \(settings.shownURL): \(plural(state.hits.count, "hit")), "
                + "\(state.misses.count) \(state.misses.count == 1 ? "miss" : "misses"), "
                + "\(state.published) published; \(formatSize(Int(traffic.downloaded))) down, "
                + "\(formatSize(Int(traffic.uploaded))) up in \(plural(traffic.requests, "request")) "
                + "(\(formatDuration(traffic.seconds)))"
            return (warnings, summary)
        }
    }

    // MARK: - Failures

    /// Stops asking the remote, with one warning.
    private func fail(_ failure: HTTPCacheClient.Failure) {
        state.withLock { state in
            guard state.failure == nil else { return }
            state.failure =
                "the remote cache \(settings.shownURL) failed (\(failure.message)); the run goes on without it"
        }
    }

    private func refuse(_ reason: String) {
        state.withLock { if !$0.refusals.contains(reason) { $0.refusals.append(reason) } }
    }
}

extension StepRecord {
    /// The digest of everything known before the step runs, as every machine sees it: paths
    /// relative to the workflow's directory `root`, and the platform. The key of its records
    /// in a remote cache.
    func remoteKey(root: String) -> Digest {
        var writer = BinaryWriter()
        writer.write("procflow remote 1")
        writer.write(RemoteCacheSettings.platform)
        writer.write(definition)
        writer.write(environment)
        writer.write(relativePath(of: directory, from: root))
        writer.write(UInt32(inputs.count))
        for input in inputs {
            writer.write(input.name)
            writer.write(input.digest)
        }
        writer.write(UInt32(sources.count))
        for source in sources {
            writer.write(relativePath(of: source.path, from: root))
            writer.write(source.digest != nil)
            writer.write(source.digest ?? .unknown)
        }
        return SHA256.hash(writer.bytes)
    }
}

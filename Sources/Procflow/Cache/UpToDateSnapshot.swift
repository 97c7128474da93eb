import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What a run found entirely up to date looked at, so that the next run can tell the same
/// with `stat` calls alone, without loading the workflow: `<workflow>.uptodate` in the state
/// directory.
///
/// It holds what decided that every step was up to date: the workflow file (its digest, and
/// its status when that can be trusted), the `--var` values and `--only`, the status of the
/// index the records were read from, the trusted status of every file the steps read and
/// made (or that a source does not exist) and of every `cacheKey` file, and the digest of
/// every `cacheKey` command's result, which the check runs again; and what the run reported. If all of it is
/// unchanged, so is every decision, and the run is reported as it was. Any run that does not
/// find it so removes the file before anything else, and writes a new one only if it finds
/// everything up to date in turn.
///
/// A run that had steps to run (a `check` that always runs, or what an edit touched: the
/// developer's loop) leaves a snapshot of the incremental steps it settled, ``settledSteps``,
/// each with the files it stands on: the next run loads the workflow to run the others, but
/// settles from the snapshot each that stands on no changed file, without working out its
/// definition or deciding it (nor reading the index, if it settles every one).
struct UpToDateSnapshot: Sendable, Equatable {
    /// What the run is of.
    struct Key: Sendable, Equatable {
        /// The workflow file, absolute.
        var workflow: String
        /// `--var` values, `name=value`, in the order given.
        var overrides: [String]
        var only: String?
    }

    /// A step as the run reported it.
    struct Step: Sendable, Equatable {
        var id: String
        /// The ids of the groups and branches it is in, outermost first.
        var path: [String]
        /// Whether it holds other steps (reported as started and finished, not cached).
        var isContainer: Bool
    }

    var key: Key
    /// The digest of the workflow file.
    var digest: Digest
    /// The workflow file's status, if it can be trusted to tell a change.
    var workflowStatus: FileStatus?
    /// The index's status: another run's writing it changes it.
    var indexStatus: FileStatus
    /// The workflow's name.
    var name: String
    var steps: [Step]
    /// Every file looked at, with its trusted status, or `nil` for one that must not exist.
    var files: [(path: String, status: FileStatus?)]
    /// The `cacheKey` commands, with the digests of what they gave: run again, in
    /// ``keyDirectory`` with procflow's environment and ``keyAdditions``, by the check.
    var keyCommands: [(command: String, digest: Digest)] = []
    var keyDirectory = ""
    var keyAdditions: [CacheKeyValues.Addition] = []
    /// `nil` when the run ran nothing. Else the incremental steps whose last records stand for
    /// the run (decided up to date, or run and recorded) and whose files' statuses can be
    /// trusted, each with the output it gave: the run had other steps to run, which the
    /// snapshot does not answer for, and no step that the cache decides as the run goes (a
    /// `forEach` of incremental steps).
    var settledSteps: [(id: String, value: JSONValue)]? = nil
    /// For a snapshot of settled steps: the files each of ``settledSteps`` stands on, in its
    /// order, as positions in ``files``; besides those, each stands on the first
    /// ``sharedFileCount`` (the included and dotenv files, the `cacheKey` files). `nil`: each
    /// stands on every file. A run that finds some files changed settles the steps that stand
    /// on none of them, and decides the others.
    var filesOfSettledSteps: [[UInt32]]? = nil
    var sharedFileCount = 0
    /// Whether ``settledSteps`` holds every incremental step of the run: then a run that finds
    /// every file unchanged settles them all without the state.
    var settlesEveryIncrementalStep = true

    static func == (lhs: UpToDateSnapshot, rhs: UpToDateSnapshot) -> Bool {
        lhs.key == rhs.key && lhs.digest == rhs.digest && lhs.workflowStatus == rhs.workflowStatus
            && lhs.indexStatus == rhs.indexStatus && lhs.name == rhs.name && lhs.steps == rhs.steps
            && lhs.files.elementsEqual(rhs.files) { $0.path == $1.path && $0.status == $1.status }
            && lhs.keyCommands.elementsEqual(rhs.keyCommands) { $0 == $1 }
            && lhs.keyDirectory == rhs.keyDirectory && lhs.keyAdditions == rhs.keyAdditions
            && (lhs.settledSteps == nil) == (rhs.settledSteps == nil)
            && (lhs.settledSteps ?? []).elementsEqual(rhs.settledSteps ?? []) {
                $0.id == $1.id && $0.value == $1.value
            }
            && lhs.filesOfSettledSteps == rhs.filesOfSettledSteps
            && lhs.sharedFileCount == rhs.sharedFileCount
            && lhs.settlesEveryIncrementalStep == rhs.settlesEveryIncrementalStep
    }

    /// The snapshot's file for the workflow file `workflow` in `directory`.
    static func path(in directory: StateDirectory, for workflow: String) -> String {
        directory.snapshot(for: workflow)
    }

    // MARK: - Checking

    /// The snapshot in `directory` for `key`, if nothing it looked at has changed: then the
    /// run is up to date. A snapshot of settled steps (``settledSteps``) answers for those
    /// that stand on no file that changed: it comes back with them alone (and
    /// ``settlesEveryIncrementalStep`` false if a file changed), or not at all if none does.
    ///
    /// Its `cacheKey` commands start before the files are looked at, and run on meanwhile.
    /// A snapshot that answers for everything waits for them. One of settled steps
    /// does not: the run loads its workflow while they run, and asks
    /// ``keyCommandsGiveTheSame()`` before it settles a step by it. If the files changed, the
    /// run takes their results as its own (``KeyCommandsAhead``).
    static func current(in directory: StateDirectory, for key: Key) -> UpToDateSnapshot? {
        guard case .success(let bytes) = POSIXIO.readFile(path(in: directory, for: key.workflow)),
            var snapshot = try? UpToDateSnapshot(decoding: bytes),
            snapshot.key == key,
            FileSystem.status(directory.index(for: key.workflow)) == snapshot.indexStatus,
            // First: the commands are the workflow's only if it is the same.
            case .unchanged(let trustedNow) = snapshot.workflowCheck()
        else { return nil }
        snapshot.startKeyCommands()
        guard let perStep = snapshot.filesOfSettledSteps, snapshot.settledSteps != nil else {
            // Every file counts for every step: the first change ends the check.
            guard snapshot.changedFiles(all: false).isEmpty else { return nil }
            guard snapshot.settledSteps != nil || snapshot.keyCommandsGiveTheSame() else {
                return nil
            }
            return snapshot.keepingTrusted(trustedNow, in: directory)
        }
        let changed = snapshot.changedFiles(all: true)
        if !changed.isEmpty {
            guard changed.allSatisfy({ $0 >= snapshot.sharedFileCount }) else { return nil }
            let isChanged = Set(changed.map { UInt32($0) })
            var steps: [(id: String, value: JSONValue)] = []
            var files: [[UInt32]] = []
            for (step, stepFiles) in zip(snapshot.settledSteps ?? [], perStep)
            where !stepFiles.contains(where: isChanged.contains) {
                steps.append(step)
                files.append(stepFiles)
            }
            guard !steps.isEmpty else { return nil }
            snapshot.settledSteps = steps
            snapshot.filesOfSettledSteps = files
            snapshot.settlesEveryIncrementalStep = false
            // Removed by the run, which may change what it says: its status is not kept.
            return snapshot
        }
        return snapshot.keepingTrusted(trustedNow, in: directory)
    }

    /// The snapshot, written again with the workflow file's status if it did not trust one and
    /// can now (`trustedNow`).
    private func keepingTrusted(_ trustedNow: FileStatus?, in directory: StateDirectory)
        -> UpToDateSnapshot
    {
        var snapshot = self
        if let trustedNow {
            // Kept: the next runs tell the workflow by its status, not its content.
            snapshot.workflowStatus = trustedNow
            snapshot.write(in: directory)
        }
        return snapshot
    }

    /// What ``workflowCheck()`` found.
    private enum WorkflowCheck {
        case changed
        /// With the file's status if the snapshot did not trust one and it can be trusted
        /// now: taken before the file was read, and settled then, it tells any later change.
        case unchanged(trustedNow: FileStatus?)
    }

    /// Whether the workflow file is the one the snapshot was taken of: by its status when
    /// that is trusted, else by its content.
    private func workflowCheck() -> WorkflowCheck {
        let status = FileSystem.status(key.workflow)
        if let status, let known = workflowStatus, known.looksUnchanged(from: status) {
            return .unchanged(trustedNow: nil)
        }
        let seenAt = FileSystem.now()
        // Bounded, and never blocking on a FIFO put in its place: no workflow could load.
        guard
            case .success(let bytes) = POSIXIO.readRegularFile(
                key.workflow, limit: Workflow.maximumFileSize),
            SHA256.hash(bytes) == digest
        else { return .changed }
        guard let status, status.isSettled(at: seenAt) else { return .unchanged(trustedNow: nil) }
        return .unchanged(trustedNow: status)
    }

    /// Whether the workflow as `read`, its other files (included, dotenv) at `otherFiles` once
    /// read, is the one the snapshot was taken of: a file may change between the check and its
    /// reading.
    func isOf(workflow read: WorkflowRead, otherFiles: [(path: String, status: FileStatus?)])
        -> Bool
    {
        // Its status now, when the snapshot trusted it, tells that what was read is what was
        // looked at (a change after the check would show in it); else its content does.
        let unchanged =
            workflowStatus.map { known in
                FileSystem.status(key.workflow).map(known.looksUnchanged) ?? false
            } ?? false
        guard unchanged || read.digest == digest else { return false }
        return otherFiles.allSatisfy { file in
            guard let now = file.status,
                let known = files.first(where: { $0.path == file.path })?.status
            else { return false }
            return known.looksUnchanged(from: now)
        }
    }

    /// The positions in ``files`` of the files that changed: each one if `all`, else the
    /// first found (empty if none did).
    private func changedFiles(all: Bool) -> [Int] {
        // Most files are below the workflow's directory: looked up from there.
        let folder = String(
            key.workflow[..<(key.workflow.lastIndex(of: "/") ?? key.workflow.startIndex)])
        let directory = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if directory >= 0 { close(directory) } }
        let prefix = folder + "/"
        let files = files
        @Sendable func changed(in range: Range<Int>, stop: () -> Bool) -> [Int] {
            var changed: [Int] = []
            for index in range {
                if !all, index % 64 == 0, stop() { break }
                let file = files[index]
                let now = FileSystem.status(file.path, below: directory, prefix: prefix)
                let unchanged =
                    file.status.map { expected in now.map(expected.looksUnchanged) ?? false }
                    ?? (now == nil)
                guard !unchanged else { continue }
                changed.append(index)
                if !all { break }
            }
            return changed
        }
        // On every core (threads the run goes on to use). Unless each is wanted, the first
        // change found stops the others.
        let found = Locked([Int]())
        OnEveryCore.slices(of: files.count, minimumSlice: Self.filesPerSlice) { range in
            let changed = changed(in: range) { !found.withLock(\.isEmpty) }
            if !changed.isEmpty { found.withLock { $0 += changed } }
        }
        return found.withLock { $0 }
    }

    /// The fewest files a thread of the check is given: fewer are not worth a thread.
    private static let filesPerSlice = 256

    /// The environment a run gives its `cacheKey` commands.
    private var keyEnvironment: [String: String] {
        CacheKeyValues.environment(processEnvironment(), adding: keyAdditions)
    }

    private func startKeyCommands() {
        guard !keyCommands.isEmpty else { return }
        let environment = keyEnvironment
        for (command, _) in keyCommands {
            KeyCommandsAhead.start(command, in: keyDirectory, environment: environment)
        }
    }

    /// Whether every `cacheKey` command gives what it gave, as a run would run it.
    func keyCommandsGiveTheSame() -> Bool {
        guard !keyCommands.isEmpty else { return true }
        let environment = keyEnvironment
        return keyCommands.allSatisfy { command, digest in
            KeyCommandsAhead.digest(
                of: command, in: keyDirectory, environment: environment, taking: false) == digest
        }
    }

    // MARK: - Files

    /// Writes the snapshot; a failure only means the next run checks everything.
    ///
    /// Written in pieces, not held whole: the snapshot of a full run of 100,000 steps names
    /// 200,000 files, and is written at the end of the run, when its memory is at its highest.
    func write(in directory: StateDirectory) {
        try? StateDirectory.write(
            to: Self.path(in: directory, for: key.workflow), temporary: directory.temporary
        ) { descriptor throws(POSIXIO.Failure) in
            _ = try write(to: descriptor)
        }
    }

    /// Writes the bytes ``encoded()`` makes to `descriptor` (a new file) in pieces.
    ///
    /// - Returns: how many bytes it wrote.
    func write(to descriptor: Int32, piece: Int = StateFile.piece) throws(POSIXIO.Failure) -> Int {
        try StateFile.write(
            .snapshot, version: StateFile.version, appendable: false, to: descriptor,
            piece: piece, encode: encodeBody)
    }

    /// The snapshot as its file holds it.
    func encoded() -> [UInt8] {
        var writer = BinaryWriter()
        encodeBody(into: &writer) { _ in }
        return StateFile.wrap(writer.finished(), as: .snapshot)
    }

    /// Encodes the snapshot's body into `writer`, calling `pause` after each step and file.
    private func encodeBody(into writer: inout BinaryWriter, pause: (inout BinaryWriter) -> Void) {
        writer.write(key.workflow)
        writer.write(digest)
        writer.write(strings: key.overrides)
        writer.write(key.only != nil)
        writer.write(key.only ?? "")
        writer.write(workflowStatus)
        writer.write(indexStatus)
        writer.write(name)
        writer.write(UInt32(steps.count))
        for step in steps {
            writer.write(step.id)
            writer.write(step.isContainer)
            writer.write(strings: step.path)
            pause(&writer)
        }
        writer.write(UInt32(files.count))
        for file in files {
            writer.write(file.path)
            writer.write(file.status)
            pause(&writer)
        }
        writer.write(UInt32(keyCommands.count))
        for (command, digest) in keyCommands {
            writer.write(command)
            writer.write(digest)
        }
        writer.write(keyDirectory)
        writer.write(UInt32(keyAdditions.count))
        for addition in keyAdditions {
            writer.write(addition.name)
            writer.write(addition.value)
            writer.write(addition.weak)
        }
        writer.write(settledSteps != nil)
        writer.write(UInt32(settledSteps?.count ?? 0))
        for (id, value) in settledSteps ?? [] {
            writer.write(id)
            writer.write(JSONWriter.string(value))
            pause(&writer)
        }
        writer.write(filesOfSettledSteps != nil)
        for positions in filesOfSettledSteps ?? [] {
            writer.write(UInt32(positions.count))
            for position in positions { writer.write(position) }
            pause(&writer)
        }
        writer.write(UInt32(sharedFileCount))
        writer.write(settlesEveryIncrementalStep)
    }

    /// Removes the snapshot of `workflow`, before a run that may change what it says.
    static func remove(in directory: StateDirectory, for workflow: String) {
        unlink(path(in: directory, for: workflow))
    }

    fileprivate static func read(_ reader: inout BinaryReader) throws(BinaryReader.Truncated)
        -> UpToDateSnapshot
    {
        let workflow = try reader.string()
        let digest = try reader.digest()
        let overrides = try reader.strings()
        let hasOnly = try reader.bool()
        let only = try reader.string()
        let workflowStatus = try reader.status()
        guard let indexStatus = try reader.status() else { throw BinaryReader.Truncated() }
        let name = try reader.string()
        var steps: [Step] = []
        let stepCount = try reader.count(minimumSize: 9)
        steps.reserveCapacity(stepCount)
        // The steps of a group share one path, read once.
        var path: [String] = []
        for _ in 0..<stepCount {
            let id = try reader.string()
            let isContainer = try reader.bool()
            path = try reader.strings(sameAs: path)
            steps.append(Step(id: id, path: path, isContainer: isContainer))
        }
        var files: [(path: String, status: FileStatus?)] = []
        let fileCount = try reader.count(minimumSize: 5)
        files.reserveCapacity(fileCount)
        for _ in 0..<fileCount { files.append((try reader.string(), try reader.status())) }
        var keyCommands: [(command: String, digest: Digest)] = []
        for _ in 0..<(try reader.count(minimumSize: 36)) {
            keyCommands.append((try reader.string(), try reader.digest()))
        }
        let keyDirectory = try reader.string()
        var keyAdditions: [CacheKeyValues.Addition] = []
        for _ in 0..<(try reader.count(minimumSize: 9)) {
            keyAdditions.append(
                .init(
                    name: try reader.string(), value: try reader.string(), weak: try reader.bool()))
        }
        let hasSettledSteps = try reader.bool()
        var settledSteps: [(id: String, value: JSONValue)] = []
        for _ in 0..<(try reader.count(minimumSize: 8)) {
            let id = try reader.string()
            let text = try reader.string()
            // Most steps give nothing: no parser for that.
            if text == "null" {
                settledSteps.append((id, .null))
                continue
            }
            // Written by JSONWriter: a value that does not parse is a damaged file.
            guard let value = try? JSONParser.parse(Array(text.utf8)).plain else {
                throw BinaryReader.Truncated()
            }
            settledSteps.append((id, value))
        }
        var filesOfSettledSteps: [[UInt32]]?
        if try reader.bool() {
            var all: [[UInt32]] = []
            all.reserveCapacity(settledSteps.count)
            for _ in settledSteps.indices {
                var positions: [UInt32] = []
                for _ in 0..<(try reader.count(minimumSize: 4)) {
                    let position = try reader.uint32()
                    guard position < files.count else { throw BinaryReader.Truncated() }
                    positions.append(position)
                }
                all.append(positions)
            }
            filesOfSettledSteps = all
        }
        let sharedFileCount = Int(try reader.uint32())
        let settlesEveryIncrementalStep = try reader.bool()
        guard sharedFileCount <= files.count else { throw BinaryReader.Truncated() }
        return UpToDateSnapshot(
            key: Key(workflow: workflow, overrides: overrides, only: hasOnly ? only : nil),
            digest: digest, workflowStatus: workflowStatus, indexStatus: indexStatus, name: name,
            steps: steps, files: files, keyCommands: keyCommands, keyDirectory: keyDirectory,
            keyAdditions: keyAdditions, settledSteps: hasSettledSteps ? settledSteps : nil,
            filesOfSettledSteps: filesOfSettledSteps, sharedFileCount: sharedFileCount,
            settlesEveryIncrementalStep: settlesEveryIncrementalStep)
    }
}

extension UpToDateSnapshot {
    /// The snapshot a file holds.
    ///
    /// - Throws: a ``StateFile/Problem`` if it is not a snapshot this procflow wrote whole.
    init(decoding bytes: [UInt8]) throws(StateFile.Problem) {
        self = try StateFile.unwrap(bytes, as: .snapshot, Self.read)
    }
}

/// The workflow file as a run read it, for the run's snapshot: its bytes while they are small
/// (hashed only if asked), else only their digest, taken at once so that the bytes of a large
/// file (15 MB at 100,000 steps) are not held through the run for it.
enum WorkflowRead {
    case bytes([UInt8])
    case digest(Digest)

    /// The largest file whose bytes are held.
    static let largestHeld = 1 << 20

    init(_ bytes: [UInt8]) {
        self = bytes.count > Self.largestHeld ? .digest(SHA256.hash(bytes)) : .bytes(bytes)
    }

    var digest: Digest {
        switch self {
        case .bytes(let bytes): SHA256.hash(bytes)
        case .digest(let digest): digest
        }
    }
}

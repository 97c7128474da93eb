import Foundation
import ProcedureKit

/// The content of the files one run reads and makes, by digest, each read at most once while
/// it is among the last files hashed (two generations of ``generation`` files: a run of
/// 100,000 steps kept the 200,000 it hashed to its end, 16 MB); an older one is read again if
/// asked for again, as it is now.
///
/// A file's content is read only when its `stat` (size, modification and change times with
/// nanoseconds, inode) differs from when it was last hashed, or when it had changed less than
/// ``FileStatus/racyWindow`` before that: a file written twice within one tick of the file
/// system's clock can keep its `stat`, so such a digest is not trusted until it is taken again
/// later (git's "racily clean" files).
final class FileDigests: @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `state`, a `Locked` mutex; `reader` is a
    // constant value.

    /// A file as it is now: its digest (`nil` if it does not exist), and its status if that
    /// can be trusted to tell a change next time.
    struct Observed {
        var digest: Digest?
        var status: FileStatus?
    }

    /// A file hashed in this run, with its status then, and whether that status can be
    /// trusted to tell a change next time.
    private struct Hashed {
        // The digest first: 69 bytes, 72 a file, where the status's 36 first took 80.
        var digest: Digest
        var status: FileStatus
        var isTrusted: Bool
    }

    private struct State {
        /// The files hashed latest in this run, so that a file many steps read is read once;
        /// by ``key(_:)``.
        var hashed = DenseTable<String, Hashed>()
        /// The generation hashed before them, looked up too: let go of when the latest are a
        /// generation.
        var older = DenseTable<String, Hashed>()

        /// The file hashed as `key`, if kept.
        func find(_ key: String) -> Hashed? {
            hashed[key] ?? older[key]
        }

        /// Keeps `file` as `key`; the latest become the older generation first if they are
        /// `generation` files, and the next has room for a generation, or for the files the
        /// run is expected to hash still if fewer.
        mutating func keep(_ file: Hashed, as key: String, generation: Int) {
            if hashed.count >= generation, hashed[key] == nil {
                passed += hashed.count
                older = DenseTable()
                swap(&older, &hashed)
                hashed.reserveCapacity(min(generation, max(expected - passed, 1024)))
            }
            hashed[key] = file
        }

        /// How many files the generations before the latest held.
        var passed = 0
        /// While nothing runs (``whileNothingRuns(_:)``): the statuses seen, so that a file
        /// many steps read is looked at once; by ``key(_:)``.
        var statuses: [String: FileStatus?]?
        /// How many files the run is expected to look at.
        var expected = 0
    }

    /// The digest every directory has: a directory's content is its listing, which its
    /// sources' patterns expand.
    static let directoryDigest = SHA256.hash(Array("a directory".utf8))

    private let reader = ContentStore(directory: "", temporaryDirectory: "")
    private let state = Locked(State())
    /// How many files a generation of those hashed holds.
    let generation: Int
    /// The directory the files are mostly in (the workflow's, absolute), with a slash; empty
    /// for none.
    private let base: [UInt8]

    /// Files whose paths are mostly below `directory` (absolute), if given: the tables name
    /// them from there. The last `generation` files hashed, and those of the generation
    /// before, are kept.
    init(mostlyIn directory: String? = nil, generation: Int = 32_768) {
        base = directory.map { Array(($0.hasSuffix("/") ? $0 : $0 + "/").utf8) } ?? []
        self.generation = max(1, generation)
    }

    /// What the tables name the file at `path` (absolute) by: its path from ``base`` when it
    /// is below it, which a string of 15 bytes or fewer holds without an allocation (a key
    /// for each of the 200,000 files of 100,000 steps took 80 bytes), else `path` itself.
    /// Different paths have different keys: a path from the base never starts with a slash.
    private func key(_ path: String) -> String {
        guard !base.isEmpty else { return path }
        let relative = path.utf8.withContiguousStorageIfAvailable { bytes -> String? in
            guard bytes.count > base.count, bytes[base.count] != UInt8(ascii: "/"),
                base.withUnsafeBytes({ memcmp(bytes.baseAddress!, $0.baseAddress!, $0.count) })
                    == 0
            else { return nil }
            return String(
                decoding: UnsafeBufferPointer(rebasing: bytes[base.count...]), as: UTF8.self)
        }
        return (relative ?? nil) ?? path
    }

    /// Makes room for `count` files, so that the run's tables do not grow as it goes; room
    /// made before stays.
    func reserveCapacity(_ count: Int) {
        state.withLock { state in
            state.hashed.reserveCapacity(min(count, generation))
            state.expected = max(state.expected, count)
        }
    }

    /// What the table of files hashed in this run names them by: for tests.
    var hashedKeys: [String] {
        state.withLock { Array($0.older.keys) + Array($0.hashed.keys) }
    }

    /// How many files the table of those hashed in this run holds without growing.
    var capacity: Int {
        state.withLock { $0.hashed.capacity }
    }

    /// Calls `body`, during which no file changes (nothing runs): each file's status is
    /// looked up once.
    func whileNothingRuns<T>(_ body: () -> T) -> T {
        state.withLock { $0.statuses = Dictionary(minimumCapacity: $0.expected) }
        defer { state.withLock { $0.statuses = nil } }
        return body()
    }

    /// The status of `path`, from the statuses seen if nothing runs.
    func status(of path: String) -> FileStatus? {
        let key = key(path)
        if let seen = state.withLock({ $0.statuses?[key] }) { return seen }
        let status = FileSystem.status(path)
        state.withLock { $0.statuses?[key] = .some(status) }
        return status
    }

    /// The statuses of `paths`, in order, as ``status(of:)`` gives them; looked up on every
    /// core while something runs (a link's hundreds of objects, at its turn: the run has
    /// nothing else to do on the other cores), on this thread while nothing does (the
    /// statuses seen are kept, under the lock).
    func statuses(of paths: [String]) -> [FileStatus?] {
        guard paths.count >= Self.parallelLookups, state.withLock({ $0.statuses == nil }) else {
            return paths.map(status(of:))
        }
        let found = Locked([FileStatus?](repeating: nil, count: paths.count))
        OnEveryCore.slices(of: paths.count, minimumSlice: Self.pathsPerSlice) { range in
            let statuses = range.map { FileSystem.status(paths[$0]) }
            found.withLock { $0.replaceSubrange(range, with: statuses) }
        }
        return found.withLock { $0 }
    }

    /// The fewest paths a thread is given to look up: fewer are not worth a thread.
    private static let pathsPerSlice = 128
    /// The fewest paths ``statuses(of:)`` looks up on more than one core.
    static let parallelLookups = 2 * pathsPerSlice

    /// The file at `path`, whose status is `status` (`nil` if there is none): read only if
    /// its status is not the trusted one `recorded` has, nor that of a reading in this run.
    func observe(_ path: String, status: FileStatus?, recorded: StepRecord.Source?) -> Observed {
        guard let status else { return Observed(digest: nil, status: nil) }
        if status.isDirectory { return Observed(digest: Self.directoryDigest, status: nil) }
        if let recorded, let known = recorded.status, known.looksUnchanged(from: status) {
            if let digest = recorded.digest {
                // For the rest of the run: other steps, and this one's record, may ask again.
                let key = key(path)
                state.withLock {
                    $0.keep(
                        Hashed(digest: digest, status: known, isTrusted: true), as: key,
                        generation: generation)
                }
            }
            return Observed(digest: recorded.digest, status: known)
        }
        if let hashed = state.withLock({ [key = key(path)] in $0.find(key) }),
            hashed.status.looksUnchanged(from: status)
        {
            return Observed(digest: hashed.digest, status: hashed.isTrusted ? status : nil)
        }
        let hashedAt = FileSystem.now()
        guard let read = try? reader.add(fileAt: path, store: false) else {
            return Observed(digest: .unknown, status: nil)
        }
        let trusted = remember(path, read, hashedAt: hashedAt)
        return Observed(digest: read.digest, status: trusted ? read.status : nil)
    }

    /// Reads and hashes the file at `path`, keeping nothing.
    ///
    /// - Throws: a ``CacheProblem`` if it cannot be read.
    func read(_ path: String) throws(CacheProblem) -> ContentStore.Stored {
        try reader.add(fileAt: path, store: false)
    }

    /// Keeps a file's digest while it is among the last hashed; tells whether its status can
    /// be trusted to tell a change next time: not if the file changed while it was read, or
    /// shortly before.
    func remember(_ path: String, _ read: ContentStore.Stored, hashedAt: Int64) -> Bool {
        let trusted = read.isSteady && read.status.isSettled(at: hashedAt)
        let key = key(path)
        state.withLock { state in
            state.keep(
                Hashed(digest: read.digest, status: read.status, isTrusted: trusted), as: key,
                generation: generation)
        }
        return trusted
    }

    /// `files` with their statuses brought up to date, if none changed content; `nil` if one
    /// did.
    func unchanged(_ files: [StepRecord.Source]) -> [StepRecord.Source]? {
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
    func check(_ outputs: inout [StepRecord.Output]) -> [StepRecord.Output] {
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
}

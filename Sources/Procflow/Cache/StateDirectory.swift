#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The directory where procflow keeps what it remembers between runs, `.procflow` beside the
/// workflow by default:
///
/// ```
/// .procflow/
///   .gitignore             "*": the directory is never committed
///   build.json-1a2b3c4d5e6f.state
///                          one index per workflow file: each step's last run, file digests
///                          (named by the file's name and the digest of its path from here),
///                          with the records later runs changed appended
///   build.json-1a2b3c4d5e6f.lock
///                          held while a run merges its index into the file
///   build.json-1a2b3c4d5e6f.uptodate
///                          the up-to-date snapshot: what a run that found nothing to do saw
///   build.json-1a2b3c4d5e6f.durations
///                          how long each step took when it last succeeded, for the estimate
///   history/abcdef…        earlier runs of one step with one set of inputs, by their digest
///                          (a step's last run is in the index)
///   objects/abcdef…        generated files, by the digest of their content
///   tmp/                   files being written, renamed into place when whole
/// ```
///
/// Every file is written whole and renamed into place, so a reader sees the old version or
/// the new one; objects and histories are named by digests, so two runs writing one name
/// write the same thing (or, for a history, either is right). Only the index is
/// read-modified-written, or appended to, under the lock: a reader takes its entries up to
/// the first that is not whole.
///
/// The directory and everything in it is private to its user (0700 and 0600, whatever the
/// umask): generated files can be keys and tokens. A directory another user owns or can write
/// in is not used at all (``refusal()``): what it holds could have been put there to be
/// restored into the checkout.
public struct StateDirectory: Sendable {
    /// The directory.
    public let path: String

    /// The state directory at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The default for a workflow file: `.procflow` in its directory.
    public static func beside(workflow file: String) -> StateDirectory {
        let names = resolve(file, in: ".").parts(between: UInt8(ascii: "/")).dropLast()
        let folder = "/" + joinedPath(names)
        return StateDirectory(path: folder + (names.isEmpty ? "" : "/") + ".procflow")
    }

    var objects: String { path + "/objects" }
    var history: String { path + "/history" }
    var temporary: String { path + "/tmp" }

    /// The content store.
    var store: ContentStore {
        ContentStore(directory: objects, temporaryDirectory: temporary)
    }

    /// The permissions of the directories procflow makes in it.
    static let directoryMode: mode_t = 0o700
    /// The permissions of the files procflow writes in it.
    static let fileMode: mode_t = 0o600

    /// The index of the workflow file `file`.
    func index(for file: String) -> String {
        prefix(for: file) + ".state"
    }

    /// The lock of the index of `file`.
    func lock(for file: String) -> String {
        prefix(for: file) + ".lock"
    }

    /// The durations of the steps of `file` when they last succeeded.
    func durations(for file: String) -> String {
        prefix(for: file) + ".durations"
    }

    /// The up-to-date snapshot of `file`.
    func snapshot(for file: String) -> String {
        prefix(for: file) + ".uptodate"
    }

    /// The plan of `file`: the workflow as it last loaded (``WorkflowPlan``).
    func plan(for file: String) -> String {
        prefix(for: file) + ".plan"
    }

    /// Where the files of the workflow file `file` are, less their extension: its name, for
    /// people, and the digest of its path relative to this directory, so that two workflows
    /// of one name sharing the directory keep apart.
    private func prefix(for file: String) -> String {
        let name = file.parts(between: UInt8(ascii: "/")).last.map(String.init) ?? file
        let relative = relativePath(of: resolve(file, in: "."), from: resolve(path, in: "."))
        let digest = SHA256.hash(Array(relative.utf8))
        // A `String` of the digest's start: appending a `Substring` takes the generic path,
        // whose first use costs a quarter of a million instructions.
        return path + "/" + name + "-" + String(digest.hex.prefix(12))
    }

    /// Why the directory must not be used, if it must not: another user owns it, or others
    /// can write in it. A directory of this user's that others can read (as earlier versions
    /// made it) is made private. Nothing to say if it does not exist yet.
    public func refusal() -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let mode = status.st_mode & 0o777
        if status.st_uid != geteuid() {
            return
                "not using the state directory \(path): it belongs to another user (uid \(status.st_uid))"
        }
        if mode & 0o022 != 0 {
            return
                "not using the state directory \(path): other users can write in it (mode \(String(mode, radix: 8))); make it private with chmod 700, or remove it"
        }
        if mode & 0o077 != 0 { chmod(path, Self.directoryMode) }
        return nil
    }

    /// The history of the runs whose inputs have digest `key`.
    func history(of key: Digest) -> String {
        "\(history)/\(key.hex)"
    }

    /// Creates the directory, with a `.gitignore` that keeps it out of git.
    ///
    /// - Throws: a ``CacheProblem`` if it cannot be created.
    func prepare() throws(CacheProblem) {
        if FileSystem.exists(path + "/.gitignore") { return }
        guard POSIXIO.makeDirectories(path, mode: Self.directoryMode),
            FileSystem.isDirectory(path)
        else {
            throw CacheProblem(
                message:
                    "cannot create the state directory \(path): \(String(cString: strerror(errno)))"
            )
        }
        try? Self.write(Array("*\n".utf8), to: path + "/.gitignore", temporary: temporary)
    }

    /// Writes `bytes` to a temporary file in `temporary`, then renames it to `destination`,
    /// private to the user.
    ///
    /// - Throws: a ``CacheProblem`` naming the file and the reason.
    static func write(_ bytes: [UInt8], to destination: String, temporary: String)
        throws(CacheProblem)
    {
        do {
            try POSIXIO.writeAtomically(
                bytes, to: destination, mode: fileMode, directoryMode: directoryMode,
                temporaryDirectory: temporary, sync: false)
        } catch {
            throw CacheProblem(message: error.message)
        }
    }

    /// As ``write(_:to:temporary:)``, with the file's content written by `content` to its
    /// descriptor, in pieces.
    ///
    /// - Throws: a ``CacheProblem`` naming the file and the reason.
    static func write(
        to destination: String, temporary: String,
        content: (Int32) throws(POSIXIO.Failure) -> Void
    ) throws(CacheProblem) {
        do {
            try POSIXIO.writeAtomically(
                to: destination, mode: fileMode, directoryMode: directoryMode,
                temporaryDirectory: temporary, sync: false, content: content)
        } catch {
            throw CacheProblem(message: error.message)
        }
    }
}

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
///   build.json.state       one index per workflow file: each step's last run, file digests
///   build.json.lock        held while a run merges its index into the file
///   history/abcdef…        earlier runs of one step with one set of inputs, by their digest
///                          (a step's last run is in the index)
///   objects/abcdef…        generated files, by the digest of their content
///   tmp/                   files being written, renamed into place when whole
/// ```
///
/// Every file is written whole and renamed into place, so a reader sees the old version or
/// the new one; objects and histories are named by digests, so two runs writing one name
/// write the same thing (or, for a history, either is right). Only the index is
/// read-modified-written, under the lock.
public struct StateDirectory: Sendable {
    /// The directory.
    public let path: String

    /// The state directory at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The default for a workflow file: `.procflow` in its directory.
    public static func beside(workflow file: String) -> StateDirectory {
        let directory = resolve(file, in: ".").split(separator: "/").dropLast().joined(
            separator: "/")
        return StateDirectory(path: "/" + directory + (directory.isEmpty ? "" : "/") + ".procflow")
    }

    var objects: String { path + "/objects" }
    var history: String { path + "/history" }
    var temporary: String { path + "/tmp" }

    /// The content store.
    var store: ContentStore {
        ContentStore(directory: objects, temporaryDirectory: temporary)
    }

    /// The index of the workflow file `file`.
    func index(for file: String) -> String {
        path + "/" + (file.split(separator: "/").last.map(String.init) ?? file) + ".state"
    }

    /// The lock of the index of `file`.
    func lock(for file: String) -> String {
        path + "/" + (file.split(separator: "/").last.map(String.init) ?? file) + ".lock"
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
        guard FileSystem.makeDirectories(path), FileSystem.isDirectory(path) else {
            throw CacheProblem(
                message:
                    "cannot create the state directory \(path): \(String(cString: strerror(errno)))"
            )
        }
        try? Self.write(Array("*\n".utf8), to: path + "/.gitignore", temporary: temporary)
    }

    /// Writes `bytes` to a temporary file in `temporary`, then renames it to `destination`.
    ///
    /// - Throws: a ``CacheProblem`` naming the file and the reason.
    static func write(_ bytes: [UInt8], to destination: String, temporary: String)
        throws(CacheProblem)
    {
        let folder = String(
            destination[..<(destination.lastIndex(of: "/") ?? destination.startIndex)])
        guard FileSystem.makeDirectories(temporary), FileSystem.makeDirectories(folder) else {
            throw CacheProblem(
                message: "cannot write \(destination): \(String(cString: strerror(errno)))")
        }
        let name = "\(temporary)/\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let descriptor = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CacheProblem(
                message: "cannot write \(destination): \(String(cString: strerror(errno)))")
        }
        var failure: String?
        bytes.withUnsafeBytes { buffer in
            do throws(POSIXIO.Failure) {
                try POSIXIO.write(buffer, to: descriptor)
            } catch {
                failure = error.message
            }
        }
        close(descriptor)
        if failure == nil, rename(name, destination) != 0 {
            failure = String(cString: strerror(errno))
        }
        if let failure {
            unlink(name)
            throw CacheProblem(message: "cannot write \(destination): \(failure)")
        }
    }
}

import CProcflow
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The values of a workflow's `cacheKey` parts, each worked out once per run: a command run
/// once however many steps name it, a file hashed once.
final class CacheKeyValues: Sendable {
    /// Where commands run and relative files are found.
    private let directory: String
    /// The environment commands run with.
    private let environment: [String: String]
    private let known = Locked([CacheKeyPart: Digest]())

    /// Values for a workflow in `directory` whose commands get `environment`.
    init(directory: String, environment: [String: String]) {
        self.directory = directory
        self.environment = environment
    }

    /// The digest of `part`'s value: the text; a command's exit status and standard output;
    /// a file's content (or its absence).
    func digest(of part: CacheKeyPart) -> Digest {
        if let digest = known.withLock({ $0[part] }) { return digest }
        let digest: Digest
        switch part {
        case .text(let text):
            digest = SHA256.hash(Array(("text:" + text).utf8))
        case .command(let command):
            let (status, output) = Self.run(command, in: directory, environment: environment)
            var hasher = SHA256()
            hasher.update("command:\(status):")
            hasher.update(output)
            digest = hasher.finalize()
        case .file(let path):
            let content = ContentStore.digest(ofFileAt: resolve(path, in: directory))
            digest = SHA256.hash(Array(("file:" + (content?.hex ?? "missing")).utf8))
        }
        known.withLock { $0[part] = digest }
        return digest
    }

    /// Runs `script` with `/bin/sh -e -c` in `directory`, waiting for it here: its exit
    /// status (-1 if it could not start, or died of a signal) and standard output.
    private static func run(
        _ script: String, in directory: String, environment: [String: String]
    ) -> (Int32, [UInt8]) {
        var pipe: [Int32] = [0, 0]
        guard procflow_pipe_cloexec(&pipe) == 0 else { return (-1, []) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        _ = procflow_spawn_file_actions_addchdir(&actions, directory)
        let arguments = CStringArray(["/bin/sh", "-e", "-c", script].map { ($0, nil) })
        let variables = CStringArray(environment.map { ($0.key, $0.value) })
        defer {
            arguments.deallocate()
            variables.deallocate()
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(
            &pid, "/bin/sh", &actions, nil, arguments.pointers, variables.pointers)
        close(pipe[1])
        defer { close(pipe[0]) }
        guard spawned == 0 else { return (-1, []) }
        let output = (try? POSIXIO.read(pipe[0], expected: 4096, limit: 1 << 20).get()) ?? []
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : -1, output)
    }
}

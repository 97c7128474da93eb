import CProcflow
import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The values of a workflow's `cacheKey` parts, each worked out once per run: a command run
/// once however many steps name it, a file hashed once.
final class CacheKeyValues: Sendable {
    /// A variable the workflow gives its commands over procflow's own environment: its
    /// dotenv files' (`weak`: procflow's environment wins), then its `vars` and `env`.
    struct Addition: Sendable, Equatable {
        var name: String
        var value: String
        var weak: Bool
    }

    /// What the next run must look at again to know that the parts' values are unchanged
    /// without loading the workflow.
    struct Recheck: Sendable {
        /// Each command run, with the digest it gave: run again.
        var commands: [(command: String, digest: Digest)]
        /// Each file hashed, absolute, with its status when hashed (`nil`: missing).
        var files: [(path: String, status: FileStatus?)]
    }

    /// A part's value, and for a file, what it was when hashed.
    private struct Known {
        var digest: Digest
        /// A file part's absolute path and status (`nil`: missing), if it stayed the same
        /// while it was hashed and can be trusted to show a later change.
        var file: (path: String, status: FileStatus?)?
        var fileIsTrusted = true
    }

    /// Where commands run and relative files are found.
    let directory: String
    /// What the workflow adds to procflow's environment for its commands, in order.
    let additions: [Addition]
    /// The environment commands run with.
    private let environment: [String: String]
    private let known = Locked([CacheKeyPart: Known]())

    /// Values for a workflow in `directory` whose commands get procflow's environment,
    /// `environment`, with `additions`.
    init(directory: String, environment: [String: String], additions: [Addition]) {
        self.directory = directory
        self.additions = additions
        self.environment = Self.environment(environment, adding: additions)
    }

    /// procflow's environment, `own`, with `additions`.
    static func environment(_ own: [String: String], adding additions: [Addition]) -> [String:
        String]
    {
        var environment = own
        for addition in additions where !addition.weak || own[addition.name] == nil {
            environment[addition.name] = addition.value
        }
        return environment
    }

    /// The digest of `part`'s value: the text; a command's exit status and standard output;
    /// a file's content (or its absence).
    func digest(of part: CacheKeyPart) -> Digest {
        if let known = known.withLock({ $0[part] }) { return known.digest }
        var value: Known
        switch part {
        case .text(let text):
            value = Known(digest: SHA256.hash(Array(("text:" + text).utf8)))
        case .command(let command):
            // Started ahead by the up-to-date check, perhaps: then not run twice.
            value = Known(
                digest: KeyCommandsAhead.digest(
                    of: command, in: directory, environment: environment, taking: true))
        case .file(let path):
            let absolute = resolve(path, in: directory)
            let before = FileSystem.status(absolute)
            let content = ContentStore.digest(ofFileAt: absolute)
            value = Known(digest: SHA256.hash(Array(("file:" + (content?.hex ?? "missing")).utf8)))
            let after = FileSystem.status(absolute)
            value.file = (absolute, after)
            value.fileIsTrusted =
                before == after && (after.map { $0.isSettled(at: FileSystem.now()) } ?? true)
        }
        known.withLock { $0[part] = value }
        return value.digest
    }

    /// What the parts worked out so far need looked at again; `nil` if a file's status cannot
    /// be trusted to show a change (written within the last second).
    var recheck: Recheck? {
        known.withLock { known in
            var recheck = Recheck(commands: [], files: [])
            for (part, value) in known {
                switch part {
                case .text: break
                case .command(let command): recheck.commands.append((command, value.digest))
                case .file:
                    guard value.fileIsTrusted, let file = value.file else { return nil }
                    recheck.files.append(file)
                }
            }
            return recheck
        }
    }

    /// The digest of `command`'s exit status and standard output, run with `/bin/sh -e -c`
    /// in `directory` with `environment`.
    static func commandDigest(
        _ command: String, in directory: String, environment: [String: String]
    ) -> Digest {
        let (status, output) = run(command, in: directory, environment: environment)
        var hasher = SHA256()
        hasher.update("command:\(status):")
        hasher.update(output)
        return hasher.finalize()
    }

    /// Runs `script` with `/bin/sh -e -c` in `directory`, waiting for it here: its exit
    /// status (-1 if it could not start, or died of a signal) and standard output.
    ///
    /// A script of plain words (``ShellProcedure/Command/directArguments``: `cc --version`)
    /// runs as a program and its arguments, found in `environment`'s `PATH`, as a step's does:
    /// the same command without the shell's start (1.5 ms of `cc --version`'s 2.9 here), with
    /// `PWD` set to `directory` as the shell would. One that cannot be started so (not found, a
    /// script without `#!`) is left to the shell.
    static func run(
        _ script: String, in directory: String, environment: [String: String]
    ) -> (Int32, [UInt8]) {
        if let words = ShellProcedure.Command.script(script, interpreter: .sh).directArguments,
            let program = words[0].utf8.contains(UInt8(ascii: "/"))
                ? words[0]
                : executablePath(for: words[0], searchPath: environment["PATH"], in: directory)
        {
            var direct = environment
            direct["PWD"] = directory
            if let result = run(program, words, in: directory, environment: direct) {
                return result
            }
        }
        return run(
            "/bin/sh", ["/bin/sh", "-e", "-c", script], in: directory, environment: environment)
            ?? (-1, [])
    }

    /// Runs `program` with `arguments` in `directory`, waiting for it: its exit status and
    /// standard output, or `nil` if it could not be started.
    private static func run(
        _ program: String, _ arguments: [String], in directory: String,
        environment: [String: String]
    ) -> (Int32, [UInt8])? {
        var pipe: [Int32] = [0, 0]
        guard procflow_pipe_cloexec(&pipe) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        _ = procflow_spawn_file_actions_addchdir(&actions, directory)
        let arguments = CStringArray(arguments.map { ($0, nil) })
        let variables = CStringArray(environment.map { ($0.key, $0.value) })
        defer {
            arguments.deallocate()
            variables.deallocate()
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(
            &pid, program, &actions, nil, arguments.pointers, variables.pointers)
        close(pipe[1])
        defer { close(pipe[0]) }
        guard spawned == 0 else { return nil }
        let output = (try? POSIXIO.read(pipe[0], expected: 4096, limit: 1 << 20).get()) ?? []
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : -1, output)
    }
}

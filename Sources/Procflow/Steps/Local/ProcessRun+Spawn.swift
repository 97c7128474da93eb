import CProcflow
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension ProcessRun {
    /// Starts the command as the leader of a new process group, its standard streams on
    /// `pipes`; returns its pid.
    static func spawn(_ launch: CommandLaunch, pipes: Pipes) throws(StepError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        setUp(&actions, pipes: pipes, launch: launch)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        setUp(&attributes)
        let path = try resolveExecutable(launch)
        let arguments = CStringArray(launch.arguments.lazy.map { ($0, nil) })
        defer { arguments.deallocate() }
        // PWD names the directory the command starts in, as a shell would make it.
        var own = launch.ownEnvironment
        if let pwd = launch.workingDirectory { own["PWD"] = pwd }
        var pid: pid_t = 0
        let result = launch.sharedEnvironment.withStrings(over: own) { environment in
            posix_spawn(&pid, path, &actions, &attributes, arguments.pointers, environment)
        }
        guard result == 0 else { throw spawnFailure(result, launch) }
        return pid
    }

    /// The child's stdin, stdout and stderr, the descriptors it inherits, and its working
    /// directory.
    private static func setUp(
        _ actions: inout posix_spawn_file_actions_t, pipes: Pipes, launch: CommandLaunch
    ) {
        posix_spawn_file_actions_adddup2(&actions, pipes.childStdin, 0)
        posix_spawn_file_actions_adddup2(&actions, pipes.childStdout, 1)
        posix_spawn_file_actions_adddup2(&actions, pipes.childStderr, 2)
        // The sources are above 9, clear of the targets: no dup2 overwrites a later source.
        for (source, target) in launch.inheritedDescriptors {
            posix_spawn_file_actions_adddup2(&actions, source, target)
        }
        if let directory = launch.workingDirectory {
            procflow_spawn_file_actions_addchdir(&actions, directory)
        }
    }

    /// Its own process group; no blocked signals; default handling of the signals procflow
    /// ignores (handled ones are reset by exec anyway).
    private static func setUp(_ attributes: inout posix_spawnattr_t) {
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
    }

    /// The program's path: a bare name is looked up in the command's own PATH, not
    /// procflow's.
    private static func resolveExecutable(_ launch: CommandLaunch) throws(StepError) -> String {
        if launch.executable.utf8.contains(UInt8(ascii: "/")) { return launch.executable }
        guard
            let found = executablePath(
                for: launch.executable, searchPath: launch.environmentValue("PATH"),
                in: launch.workingDirectory)
        else {
            throw StepError(.spawnFailed, "command not found: \(launch.executable)")
        }
        return found
    }

    /// Why posix_spawn failed with `result`, in a sentence.
    private static func spawnFailure(_ result: Int32, _ launch: CommandLaunch) -> StepError {
        // The working directory is checked only now: a stat per command is not free.
        if let directory = launch.workingDirectory {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory)
                || !isDirectory.boolValue
            {
                return StepError(.spawnFailed, "the working directory \(directory) does not exist")
            }
        }
        if result == ENOENT {
            return StepError(.spawnFailed, "command not found: \(launch.executable)")
        }
        if result == E2BIG { return tooBig(launch) }
        return StepError(
            .spawnFailed, "cannot run \(launch.executable): \(String(cString: strerror(result)))")
    }

    /// The most bytes one argument or environment entry may have (Linux's MAX_ARG_STRLEN).
    static let longestArgument = 32 * 4096

    /// Why the kernel refused the command's arguments and environment (E2BIG), naming the
    /// entry at fault when one is over the per-entry limit.
    private static func tooBig(_ launch: CommandLaunch) -> StepError {
        let entries =
            launch.environment.map {
                (
                    name: "the environment variable \($0.key)",
                    size: $0.key.utf8.count + $0.value.utf8.count + 1
                )
            }
            + launch.arguments.enumerated().map {
                (name: "argument \($0.offset)", size: $0.element.utf8.count)
            }
        if let largest = entries.max(by: { $0.size < $1.size }), largest.size >= longestArgument {
            return StepError(
                .spawnFailed,
                "cannot run \(launch.executable): \(largest.name) holds \(formatSize(largest.size)), more than the \(formatBytes(longestArgument)) the system allows one; give large values on stdin (\"input\") instead"
            )
        }
        let total = entries.reduce(0) { $0 + $1.size }
        return StepError(
            .spawnFailed,
            "cannot run \(launch.executable): its arguments and environment take \(formatSize(total)), more than the system allows; give large values on stdin (\"input\") instead"
        )
    }
}

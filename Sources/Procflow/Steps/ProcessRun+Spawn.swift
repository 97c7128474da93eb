import CProcflow
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension ProcessRun {
    static func spawn(_ launch: Launch, pipes: Pipes) throws(StepError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipes.childStdin, 0)
        posix_spawn_file_actions_adddup2(&actions, pipes.childStdout, 1)
        posix_spawn_file_actions_adddup2(&actions, pipes.childStderr, 2)
        if let directory = launch.workingDirectory {
            procflow_spawn_file_actions_addchdir(&actions, directory)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group; no blocked signals; default handling of the signals procflow
        // ignores (handled ones are reset by exec anyway).
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

        // A bare name is looked up in the command's own PATH, not procflow's.
        let path: String
        if launch.executable.utf8.contains(UInt8(ascii: "/")) {
            path = launch.executable
        } else if let found = executablePath(
            for: launch.executable, searchPath: launch.environment["PATH"],
            in: launch.workingDirectory)
        {
            path = found
        } else {
            throw StepError(.spawnFailed, "command not found: \(launch.executable)")
        }
        let arguments = CStringArray(launch.arguments.lazy.map { ($0, nil) })
        // PWD names the directory the command starts in, as a shell would make it.
        let pwd = launch.workingDirectory
        let environment = CStringArray(
            launch.environment.lazy.filter { pwd == nil || $0.key != "PWD" }
                .map { ($0.key, Optional($0.value)) },
            plus: pwd.map { ("PWD", $0) })
        defer {
            arguments.deallocate()
            environment.deallocate()
        }
        var pid: pid_t = 0
        let result = posix_spawn(
            &pid, path, &actions, &attributes, arguments.pointers, environment.pointers)
        guard result == 0 else {
            let reason = String(cString: strerror(result))
            // The working directory is checked only now: a stat per command is not free.
            if let directory = launch.workingDirectory {
                var isDirectory: ObjCBool = false
                if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory)
                    || !isDirectory.boolValue
                {
                    throw StepError(
                        .spawnFailed, "the working directory \(directory) does not exist")
                }
            }
            if result == ENOENT {
                throw StepError(.spawnFailed, "command not found: \(launch.executable)")
            }
            throw StepError(.spawnFailed, "cannot run \(launch.executable): \(reason)")
        }
        return pid
    }
}

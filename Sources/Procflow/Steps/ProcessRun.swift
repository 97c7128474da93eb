import CProcflow
import Dispatch
import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One run of a command: spawned as the leader of its own process group, its stdout and stderr
/// drained as they arrive, its exit noticed without polling, and its end reported once.
///
/// Teardown is a sequence nothing interrupts: a signal to the whole group, a grace period, then
/// SIGKILL. When the command exits, whatever it left in its group is torn down the same way,
/// and pipes still held open by such leftovers are given up after a short wait, so a run
/// always ends.
final class ProcessRun: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is touched only on `queue`, a serial queue.

    enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signaled(Int32)
    }

    struct Outcome: Sendable {
        var termination: Termination
        /// Stdout, if it was captured and stayed under the limit.
        var captured: [UInt8]
        var captureExceeded: Bool
        /// The last lines written to stderr.
        var stderrTail: [String]
    }

    /// How a run is started.
    struct Launch {
        var executable: String
        /// The arguments, the program name first.
        var arguments: [String]
        var environment: [String: String]
        var workingDirectory: String?
        var stdin: [UInt8]?
        /// Whether to keep stdout, up to `captureLimit` bytes.
        var captureStdout: Bool
        var captureLimit: Int
        /// How long leftovers get between SIGTERM and SIGKILL once the command has exited.
        var gracePeriod: TimeInterval
        /// How long to wait, after the command exits, for pipes that its leftovers hold open.
        var pipeGracePeriod: TimeInterval
        var onOutput: (@Sendable (ShellProcedure.Stream, [Substring]) -> Void)?
    }

    let pid: pid_t
    private let queue = DispatchQueue(label: "procflow.process")
    private let launch: Launch
    private var completion: (@Sendable (Outcome) -> Void)?
    private var readers: [StreamReader] = []
    private var exitSource: DispatchSourceRead?
    private var termination: Termination?
    private var captured: [UInt8] = []
    private var captureExceeded = false
    private var stderrTail = RingOfLines(limit: 20)
    private var killScheduled = false

    /// The stderr lines kept for failure reports.
    static let stderrTailLength = 20

    private init(pid: pid_t, launch: Launch) {
        self.pid = pid
        self.launch = launch
    }

    /// Spawns the command and starts watching it; `completion` is called once, on an arbitrary
    /// thread, when the run is over.
    static func start(_ launch: Launch, completion: @escaping @Sendable (Outcome) -> Void)
        throws(StepError)
        -> ProcessRun
    {
        if let directory = launch.workingDirectory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
                isDirectory.boolValue
            else {
                throw StepError(.spawnFailed, "the working directory \(directory) does not exist")
            }
        }
        var pipes = Pipes()
        defer { pipes.closeParentSides() }
        guard pipes.open(stdin: launch.stdin != nil) else {
            throw StepError(
                .spawnFailed, "cannot create pipes: \(String(cString: strerror(errno)))")
        }
        let pid = try spawn(launch, pipes: pipes)
        pipes.closeChildSides()
        ProcessGroups.shared.register(pid)

        let run = ProcessRun(pid: pid, launch: launch)
        run.completion = completion
        run.queue.sync {
            run.readers = [
                StreamReader(stream: .stdout, descriptor: pipes.takeStdout(), queue: run.queue) {
                    [run] chunk in
                    run.received(chunk, from: .stdout)
                } onEnd: { [run] in
                    run.streamEnded()
                },
                StreamReader(stream: .stderr, descriptor: pipes.takeStderr(), queue: run.queue) {
                    [run] chunk in
                    run.received(chunk, from: .stderr)
                } onEnd: { [run] in
                    run.streamEnded()
                },
            ]
            run.watchExit()
        }
        if let input = launch.stdin {
            let descriptor = pipes.takeStdinWriter()
            DispatchQueue.global().async { writeAll(input, to: descriptor) }
        }
        return run
    }

    /// Sends `signal` to the command's process group, then SIGKILL after `gracePeriod` to
    /// whatever is left.
    func terminate(signal: Int32, gracePeriod: TimeInterval) {
        queue.async { [self] in
            guard termination == nil || ProcessGroups.isAlive(pid) else { return }
            kill(-pid, signal)
            scheduleKill(after: gracePeriod)
        }
    }

    // MARK: - On the queue

    private func scheduleKill(after gracePeriod: TimeInterval) {
        guard !killScheduled else { return }
        killScheduled = true
        queue.asyncAfter(deadline: .now() + gracePeriod) { [self] in
            kill(-pid, SIGKILL)
            if termination != nil { ProcessGroups.shared.unregister(pid) }
        }
    }

    private func received(_ chunk: StreamReader.Chunk, from stream: ShellProcedure.Stream) {
        if stream == .stdout, launch.captureStdout, !captureExceeded {
            if captured.count + chunk.bytes.count > launch.captureLimit {
                captureExceeded = true
                captured = []
                kill(-pid, SIGTERM)
                scheduleKill(after: launch.gracePeriod)
            } else {
                captured.append(contentsOf: chunk.bytes)
            }
        }
        if stream == .stderr {
            for line in chunk.lines { stderrTail.append(String(line)) }
        }
        if !chunk.lines.isEmpty { launch.onOutput?(stream, chunk.lines) }
    }

    private func streamEnded() {
        finishIfDone()
    }

    private func watchExit() {
        let descriptor = procflow_pidfd_open(pid)
        guard descriptor >= 0 else {
            // Without pidfd (Linux before 5.3), a thread waits for this one process.
            Thread { [self] in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                let final = status
                queue.async { self.exited(final) }
            }.start()
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [self] in
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            guard reaped == pid || (reaped < 0 && errno == ECHILD) else { return }
            exitSource?.cancel()
            exitSource = nil
            exited(status)
        }
        source.setCancelHandler { close(descriptor) }
        exitSource = source
        source.resume()
    }

    private func exited(_ status: Int32) {
        let signal = status & 0x7F
        termination = signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
        if ProcessGroups.isAlive(pid) {
            // Leftovers in the group: they go the way of a cancelled run.
            kill(-pid, SIGTERM)
            scheduleKill(after: launch.gracePeriod)
        } else {
            ProcessGroups.shared.unregister(pid)
        }
        if readers.contains(where: { !$0.isFinished }) {
            queue.asyncAfter(deadline: .now() + launch.pipeGracePeriod) { [self] in
                for reader in readers { reader.stop() }
                finishIfDone()
            }
        }
        finishIfDone()
    }

    private func finishIfDone() {
        guard let termination, let completion, readers.allSatisfy(\.isFinished) else { return }
        self.completion = nil
        let outcome = Outcome(
            termination: termination, captured: captured, captureExceeded: captureExceeded,
            stderrTail: stderrTail.lines)
        DispatchQueue.global().async { completion(outcome) }
    }

    // MARK: - Spawning

    private static func spawn(_ launch: Launch, pipes: Pipes) throws(StepError) -> pid_t {
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
        // itself catches or ignores.
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [
            SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM, SIGTSTP,
        ] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let arguments = launch.arguments.map { strdup($0) } + [nil]
        let environment = launch.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in arguments { free(pointer) }
            for pointer in environment { free(pointer) }
        }
        var pid: pid_t = 0
        let result =
            launch.executable.contains("/")
            ? posix_spawn(&pid, launch.executable, &actions, &attributes, arguments, environment)
            : posix_spawnp(&pid, launch.executable, &actions, &attributes, arguments, environment)
        guard result == 0 else {
            let reason = String(cString: strerror(result))
            if result == ENOENT {
                throw StepError(.spawnFailed, "command not found: \(launch.executable)")
            }
            throw StepError(.spawnFailed, "cannot run \(launch.executable): \(reason)")
        }
        return pid
    }
}

/// The pipes between procflow and a command.
private struct Pipes {
    private var stdin: (read: Int32, write: Int32) = (-1, -1)
    private var stdout: (read: Int32, write: Int32) = (-1, -1)
    private var stderr: (read: Int32, write: Int32) = (-1, -1)

    var childStdin: Int32 { stdin.read }
    var childStdout: Int32 { stdout.write }
    var childStderr: Int32 { stderr.write }

    /// Opens the pipes (close-on-exec: the child gets copies on 0, 1 and 2). Without an input,
    /// stdin is /dev/null.
    mutating func open(stdin withInput: Bool) -> Bool {
        func makePipe() -> (Int32, Int32)? {
            var descriptors: [Int32] = [0, 0]
            guard procflow_pipe_cloexec(&descriptors) == 0 else { return nil }
            return (descriptors[0], descriptors[1])
        }
        if withInput {
            guard let pipe = makePipe() else { return false }
            stdin = pipe
        } else {
            let null = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard null >= 0 else { return false }
            stdin = (null, -1)
        }
        guard let out = makePipe(), let err = makePipe() else { return false }
        stdout = out
        stderr = err
        return true
    }

    mutating func closeChildSides() {
        for descriptor in [stdin.read, stdout.write, stderr.write] where descriptor >= 0 {
            close(descriptor)
        }
        stdin.read = -1
        stdout.write = -1
        stderr.write = -1
    }

    mutating func takeStdout() -> Int32 {
        defer { stdout.read = -1 }
        return stdout.read
    }

    mutating func takeStderr() -> Int32 {
        defer { stderr.read = -1 }
        return stderr.read
    }

    mutating func takeStdinWriter() -> Int32 {
        defer { stdin.write = -1 }
        return stdin.write
    }

    /// Closes whatever was not handed over (after a failed spawn, everything).
    mutating func closeParentSides() {
        closeChildSides()
        for descriptor in [stdin.write, stdout.read, stderr.read] where descriptor >= 0 {
            close(descriptor)
        }
    }
}

/// Writes all of `bytes` to `descriptor`, then closes it; a reader that goes away is not an
/// error (the command need not read its stdin).
private func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    var offset = 0
    bytes.withUnsafeBytes { buffer in
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                break
            }
            offset += written
        }
    }
    close(descriptor)
}

/// The last few lines of a stream.
struct RingOfLines {
    let limit: Int
    private(set) var lines: [String] = []

    init(limit: Int) {
        self.limit = limit
    }

    mutating func append(_ line: String) {
        if lines.count == limit { lines.removeFirst() }
        lines.append(line)
    }
}

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
/// Each run has a thread of its own (from a pool) that waits, with poll(2), on the command's two pipes and on
/// a pidfd that becomes readable when the command exits. (Dispatch read sources would do the
/// same with fewer threads, but on Linux tearing many of them down concurrently corrupts
/// libdispatch's epoll bookkeeping — swift-corelibs-libdispatch issue 949 — and crashes.)
/// Reading a chunk and handing it on happen on that thread, so a command that writes faster
/// than its output is consumed simply waits.
///
/// Teardown is a sequence nothing interrupts: a signal to the whole group, a grace period, then
/// SIGKILL. When the command exits, whatever it left in its group is torn down the same way,
/// and pipes still held open by such leftovers are given up after a short wait, so a run
/// always ends.
final class ProcessRun: @unchecked Sendable {
    // @unchecked Sendable: `termination`, `killScheduled` and `exited` live in `state`, a
    // `Locked` mutex; everything else is constant or used only by the run's own thread.

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
    private let launch: Launch
    private let state = Locked((exited: false, killScheduled: false))

    /// The stderr lines kept for failure reports.
    static let stderrTailLength = 20

    /// How long, in milliseconds, a command runs before its run opens a pidfd to see its exit.
    static let pidfdDelay: UInt64 = 20

    private init(pid: pid_t, launch: Launch) {
        self.pid = pid
        self.launch = launch
    }

    /// Spawns the command and starts watching it; `completion` is called once, on the run's
    /// thread, when the run is over.
    static func start(_ launch: Launch, completion: @escaping @Sendable (Outcome) -> Void)
        throws(StepError)
        -> ProcessRun
    {
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
        let stdout = pipes.takeStdout()
        let stderr = pipes.takeStderr()
        // Threads come from a pool: creating one per command costs more than the command.
        WorkerThreads.shared.runAfterCurrentJob {
            run.watch(stdout: stdout, stderr: stderr, completion: completion)
        }
        if let input = launch.stdin {
            let descriptor = pipes.takeStdinWriter()
            WorkerThreads.shared.run { writeAll(input, to: descriptor) }
        }
        return run
    }

    /// Sends `signal` to the command's process group, then SIGKILL after `gracePeriod` to
    /// whatever is left.
    func terminate(signal: Int32, gracePeriod: TimeInterval) {
        let exited = state.withLock { $0.exited }
        guard !exited || ProcessGroups.isAlive(pid) else { return }
        kill(-pid, signal)
        scheduleKill(after: gracePeriod)
    }

    private func scheduleKill(after gracePeriod: TimeInterval) {
        let first = state.withLock { state -> Bool in
            defer { state.killScheduled = true }
            return !state.killScheduled
        }
        guard first else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + gracePeriod) { [pid] in
            kill(-pid, SIGKILL)
            ProcessGroups.shared.unregister(pid)
        }
    }

    // MARK: - The run's thread

    /// Reads both pipes and waits for the exit, until both pipes are closed and the command has
    /// exited — or until the pipe grace period after the exit has passed.
    ///
    /// Most commands close their pipes by exiting: then a blocking waitpid(2) collects the exit.
    /// A command still running after ``pidfdDelay`` gets a pidfd (opening one costs about as much
    /// as a short command's whole bookkeeping), so that its exit is seen even while something it
    /// started holds its pipes open.
    private func watch(stdout: Int32, stderr: Int32, completion: @Sendable (Outcome) -> Void) {
        var descriptors = [
            pollfd(fd: stdout, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stderr, events: Int16(POLLIN), revents: 0),
            pollfd(fd: -1, events: Int16(POLLIN), revents: 0),  // the pidfd, once opened
        ]
        var pidfdOpened = false
        let pidfdDue = DispatchTime.now().uptimeNanoseconds + Self.pidfdDelay * 1_000_000
        let streams: [ShellProcedure.Stream] = [.stdout, .stderr]
        var splitters = [LineSplitter(), LineSplitter()]
        // Not zeroed: only what read(2) fills is ever looked at.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        var termination: Termination?
        var giveUpReading: Date?
        var captured: [UInt8] = []
        var captureExceeded = false
        var stderrTail = RingOfLines(limit: Self.stderrTailLength)

        func deliver(_ lines: [Substring], from stream: ShellProcedure.Stream) {
            guard !lines.isEmpty else { return }
            if stream == .stderr { for line in lines { stderrTail.append(String(line)) } }
            launch.onOutput?(stream, lines)
        }

        func close(stream index: Int) {
            Glibc.close(descriptors[index].fd)
            descriptors[index].fd = -1
            deliver(splitters[index].finish(), from: streams[index])
        }

        func reap(blocking: Bool) {
            var status: Int32 = 0
            var reaped: pid_t
            repeat {
                reaped = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            } while reaped < 0 && errno == EINTR
            guard reaped == pid || (reaped < 0 && errno == ECHILD) else { return }
            let signal = status & 0x7F
            termination = signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
            state.withLock { $0.exited = true }
            if descriptors[2].fd >= 0 { Glibc.close(descriptors[2].fd) }
            descriptors[2].fd = -1
            if ProcessGroups.isAlive(pid) {
                // Leftovers in the group: they go the way of a cancelled run.
                kill(-pid, SIGTERM)
                scheduleKill(after: launch.gracePeriod)
            } else {
                ProcessGroups.shared.unregister(pid)
            }
            giveUpReading = Date().addingTimeInterval(launch.pipeGracePeriod)
        }

        while termination == nil || descriptors[0].fd >= 0 || descriptors[1].fd >= 0 {
            if termination == nil, descriptors[0].fd < 0, descriptors[1].fd < 0 {
                reap(blocking: true)  // nothing left to read: only the exit to wait for
                continue
            }
            var timeout: Int32 = -1
            if let giveUpReading {
                let left = giveUpReading.timeIntervalSinceNow
                if left <= 0 { break }
                timeout = Int32(left * 1000) + 1
            } else if !pidfdOpened {
                let now = DispatchTime.now().uptimeNanoseconds
                timeout = now >= pidfdDue ? 0 : Int32((pidfdDue - now) / 1_000_000) + 1
            } else if descriptors[2].fd < 0 {
                timeout = 50  // no pidfd (Linux before 5.3): look for the exit now and then
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0, errno != EINTR { break }
            // Due even while output keeps coming: a leftover may write on after the exit.
            if termination == nil, !pidfdOpened, DispatchTime.now().uptimeNanoseconds >= pidfdDue {
                pidfdOpened = true
                descriptors[2].fd = procflow_pidfd_open(pid)
            }
            for index in 0..<2 where descriptors[index].fd >= 0 && descriptors[index].revents != 0 {
                let count = read(descriptors[index].fd, buffer.baseAddress, buffer.count)
                if count > 0 {
                    let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                    if index == 0, launch.captureStdout, !captureExceeded {
                        if captured.count + count > launch.captureLimit {
                            captureExceeded = true
                            captured = []
                            kill(-pid, SIGTERM)
                            scheduleKill(after: launch.gracePeriod)
                        } else {
                            captured.append(contentsOf: chunk)
                        }
                    }
                    deliver(splitters[index].lines(in: chunk), from: streams[index])
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(stream: index)
                }
            }
            if termination == nil, pidfdOpened,
                descriptors[2].fd < 0 || descriptors[2].revents != 0
            {
                reap(blocking: false)
            }
        }
        // Pipes still open here are held by leftovers: stop reading them.
        for index in 0..<2 where descriptors[index].fd >= 0 { close(stream: index) }
        let outcome = Outcome(
            termination: termination ?? .signaled(SIGKILL), captured: captured,
            captureExceeded: captureExceeded, stderrTail: stderrTail.lines)
        // This thread is done once the completion returns: work the completion readies (the
        // next command of a chain) starts here, without a thread switch.
        if let next = WorkerThreads.shared.capturingNextJob({ completion(outcome) }) { next() }
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

/// Where `name` is found in `searchPath` (colon-separated; relative entries are relative to
/// `directory`), as execvp(3) would find it: the first regular file that may be executed.
func executablePath(for name: String, searchPath: String?, in directory: String?) -> String? {
    for entry in (searchPath ?? "/bin:/usr/bin").split(
        separator: ":", omittingEmptySubsequences: false)
    {
        var folder = entry.isEmpty ? "." : String(entry)
        if !folder.hasPrefix("/"), let directory { folder = directory + "/" + folder }
        let candidate = folder + "/" + name
        var info = stat()
        if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            access(candidate, X_OK) == 0
        {
            return candidate
        }
    }
    return nil
}

/// A NULL-terminated array of C strings in one allocation, as exec takes them: each string is
/// a `name` alone, or `name=value`.
///
/// Building it costs a copy of the bytes, not an allocation and a conversion per string: an
/// environment of a few dozen variables is rendered for every command.
private struct CStringArray {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let bytes: UnsafeMutableRawPointer

    init<Strings: Sequence<(String, String?)>>(
        _ strings: Strings, plus last: (name: String, value: String?)? = nil
    ) {
        var size = 0
        var count = 0
        func measure(_ name: String, _ value: String?) {
            size += name.utf8.count + 1 + (value.map { $0.utf8.count + 1 } ?? 0)
            count += 1
        }
        for (name, value) in strings { measure(name, value) }
        if let last { measure(last.name, last.value) }

        let bytes = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 1)
        let pointers = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(
            capacity: count + 1)
        var offset = 0
        var index = 0
        func append(_ text: String) {
            let copied = text.utf8.withContiguousStorageIfAvailable { source in
                if let base = source.baseAddress {
                    (bytes + offset).copyMemory(from: base, byteCount: source.count)
                }
                return source.count
            }
            if let copied {
                offset += copied
                return
            }
            for byte in text.utf8 {  // a bridged string without contiguous UTF-8
                bytes.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
                offset += 1
            }
        }
        func store(_ name: String, _ value: String?) {
            pointers[index] = (bytes + offset).assumingMemoryBound(to: CChar.self)
            index += 1
            append(name)
            if let value {
                bytes.storeBytes(of: UInt8(ascii: "="), toByteOffset: offset, as: UInt8.self)
                offset += 1
                append(value)
            }
            bytes.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
        for (name, value) in strings { store(name, value) }
        if let last { store(last.name, last.value) }
        pointers[index] = nil
        self.bytes = bytes
        self.pointers = pointers
    }

    func deallocate() {
        bytes.deallocate()
        pointers.deallocate()
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
            guard Self.devNull >= 0 else { return false }
            stdin = (Self.devNull, -1)
        }
        guard let out = makePipe(), let err = makePipe() else { return false }
        stdout = out
        stderr = err
        return true
    }

    /// /dev/null, opened once and shared as the stdin of commands without an input.
    static let devNull = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)

    mutating func closeChildSides() {
        for descriptor in [stdin.read, stdout.write, stderr.write]
        where descriptor >= 0 && descriptor != Self.devNull {
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
    bytes.withUnsafeBytes { _ = writeFully($0, to: descriptor) }
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

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

    /// Watches the command until the run is over, then calls `completion`.
    private func watch(stdout: Int32, stderr: Int32, completion: @Sendable (Outcome) -> Void) {
        var watcher = ProcessWatch(run: self, launch: launch, stdout: stdout, stderr: stderr)
        let outcome = watcher.watch()
        // This thread is done once the completion returns: work the completion readies (the
        // next command of a chain) starts here, without a thread switch.
        if let next = WorkerThreads.shared.capturingNextJob({ completion(outcome) }) { next() }
    }

    /// Records that the command has exited and been reaped: from now on its pid may be reused.
    func markExited() {
        state.withLock { $0.exited = true }
    }

    /// Tears down what the command left in its group once it has exited, or forgets the group
    /// if nothing is left.
    func tearDownLeftovers() {
        if ProcessGroups.isAlive(pid) {
            // Leftovers in the group: they go the way of a cancelled run.
            kill(-pid, SIGTERM)
            scheduleKill(after: launch.gracePeriod)
        } else {
            ProcessGroups.shared.unregister(pid)
        }
    }

    /// Stops a command whose captured stdout went over the limit.
    func stopForExceedingCapture() {
        kill(-pid, SIGTERM)
        scheduleKill(after: launch.gracePeriod)
    }
}

/// Writes all of `bytes` to `descriptor`, then closes it; a reader that goes away is not an
/// error (the command need not read its stdin).
private func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBytes { try? POSIXIO.write($0, to: descriptor) }
    close(descriptor)
}

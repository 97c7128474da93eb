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
/// always ends. A signal goes to the group only while something of it is left: once the
/// leader is reaped and the group is empty, its number may belong to another process.
final class ProcessRun: @unchecked Sendable {
    // @unchecked Sendable: what changes lives in `state`, a `Locked` mutex; everything else is
    // constant or used only by the run's own thread.

    /// What is known of the command's process group.
    private struct State {
        /// The leader has exited and been reaped: its pid may be reused once the group is empty.
        var exited = false
        /// Nothing is left in the group to signal: a signal to `-pid` could reach another
        /// process that got the number since.
        var groupGone = false
        /// A SIGKILL of the group is due after a grace period.
        var killPending = false
    }

    let pid: pid_t
    private let launch: CommandLaunch
    private let state = Locked(State())

    /// The stderr lines kept for failure reports.
    static let stderrTailLength = 20

    /// How long, in milliseconds, a command runs before its run opens a pidfd to see its exit.
    static let pidfdDelay: UInt64 = 20

    /// The leaders whose runs will reap them: nothing else may.
    private static let watched = Locked(Set<pid_t>())

    /// Whether a run will reap `pid`.
    static func isWatched(_ pid: pid_t) -> Bool {
        watched.withLock { $0.contains(pid) }
    }

    private init(pid: pid_t, launch: CommandLaunch) {
        self.pid = pid
        self.launch = launch
    }

    /// Spawns the command and starts watching it; `completion` is called once, on the run's
    /// thread, when the run is over.
    static func start(
        _ launch: CommandLaunch, completion: @escaping @Sendable (CommandOutcome) -> Void
    )
        throws(StepError)
        -> ProcessRun
    {
        SignalSetUp.prepare()
        var pipes = Pipes()
        defer { pipes.closeParentSides() }
        guard pipes.open(stdin: launch.stdin != nil) else {
            throw StepError(
                .spawnFailed, "cannot create pipes: \(String(cString: strerror(errno)))")
        }
        let signalsSent = launch.groups.spawning()
        let pid: pid_t
        do {
            pid = try spawn(launch, pipes: pipes)
        } catch {
            launch.groups.spawnFailed()
            throw error
        }
        pipes.closeChildSides()
        launch.groups.register(pid, spawnedAfter: signalsSent)
        _ = watched.withLock { $0.insert(pid) }

        // What was only needed to spawn it is not kept as long as the run is.
        var kept = launch
        (kept.sharedEnvironment, kept.ownEnvironment) = (.none, [:])
        (kept.arguments, kept.stdin) = ([], nil)
        let run = ProcessRun(pid: pid, launch: kept)
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
    /// whatever is left. Does nothing once the group is gone.
    func terminate(signal: Int32, gracePeriod: TimeInterval) {
        let sent = state.withLock { state -> Bool in
            guard !state.groupGone else { return false }
            kill(-pid, signal)
            return true
        }
        if sent { scheduleKill(after: gracePeriod) }
    }

    /// Sends SIGKILL to what is left of the group after `gracePeriod`, unless one is due
    /// already.
    private func scheduleKill(after gracePeriod: TimeInterval) {
        let first = state.withLock { state -> Bool in
            defer { state.killPending = true }
            return !state.killPending
        }
        guard first else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + gracePeriod) { [self] in
            killGroup()
        }
    }

    /// SIGKILL to the group — only if something of it is still there: a group whose leader was
    /// reaped and whose members are gone has a number another process may have by now.
    private func killGroup() {
        let forget = state.withLock { state -> Bool in
            state.killPending = false
            guard !state.groupGone else { return false }
            if state.exited, kill(-pid, 0) != 0 {
                state.groupGone = true
            } else {
                kill(-pid, SIGKILL)
            }
            return state.exited
        }
        if forget { launch.groups.unregister(pid) }
    }

    // MARK: - The run's thread

    /// Watches the command until the run is over, then calls `completion`.
    private func watch(stdout: Int32, stderr: Int32, completion: @Sendable (CommandOutcome) -> Void)
    {
        var watcher = ProcessWatch(run: self, launch: launch, stdout: stdout, stderr: stderr)
        let outcome = watcher.watch()
        // This thread is done once the completion returns: work the completion readies (the
        // next command of a chain) starts here, without a thread switch.
        if let next = WorkerThreads.shared.capturingNextJob({ completion(outcome) }) { next() }
    }

    /// Called once the leader has been reaped: tears down what it left in its group (they go
    /// the way of a cancelled run), or forgets the group if nothing is left.
    ///
    /// Leftovers keep the group's number from being reused: when procflow is their subreaper
    /// it does not reap them before the run ends, so they stay in the group even as zombies.
    func leaderReaped() {
        _ = Self.watched.withLock { $0.remove(pid) }
        let leftovers = state.withLock { state -> Bool in
            state.exited = true
            if !ProcessGroups.isAlive(pid) { state.groupGone = true }
            if !state.groupGone { kill(-pid, SIGTERM) }
            return !state.groupGone
        }
        if leftovers {
            scheduleKill(after: launch.gracePeriod)
        } else {
            launch.groups.unregister(pid)
        }
    }

    /// Stops a command whose captured stdout went over the limit.
    func stopForExceedingCapture() {
        terminate(signal: SIGTERM, gracePeriod: launch.gracePeriod)
    }
}

/// Writes all of `bytes` to `descriptor`, then closes it; a reader that goes away is not an
/// error (the command need not read its stdin).
private func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBytes { try? POSIXIO.write($0, to: descriptor) }
    close(descriptor)
}

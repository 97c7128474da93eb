import CProcflow
import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One `-j` for the whole tree: the run's GNU make jobserver, a pool of ``slots`` tokens that
/// procflow's shell steps and the make, ninja and cargo they run all draw from.
///
///     procflow --max-concurrent 3                 FIFO (0600, of its own)
///     ┌──────────────────────────────┐            ┌───────────┐
///     │ step A runs, holding 1 token │            │ +         │ ← tokens nobody holds
///     │ step B waits for one         │◀── read ───└───────────┘
///     └──────────────────────────────┘                ▲     │
///         A's make: its own process is its slot       │     ▼
///         (A's token); one more job per token ────────┴── taken, then put back
///
/// The FIFO starts with ``slots`` tokens. A shell step takes a token (one per place it takes)
/// before its command starts and puts it back when the command is over; a make it runs counts
/// its own process as its implicit slot — the step's token — and takes a token from the FIFO
/// for each further job. So steps and their jobs together never pass ``slots``, and a step
/// waits while its neighbours' jobs hold every token.
///
/// A client killed while holding tokens takes them with it. Whenever no command that was handed
/// the jobserver is running, nothing but procflow can hold a token, so the FIFO is refilled (or
/// drained) to exactly the tokens procflow does not hold: a lost token is back once those
/// commands are over.
///
/// A procflow started by a step of another (or by anything else handing it `fifo:PATH` in
/// `MAKEFLAGS`) without a `-j` of its own joins that pool instead, as a make would: its own
/// process is its implicit slot, which its first step takes, and its other steps take tokens
/// from the FIFO. The pool's maker restores it; the FIFO stays.
final class Jobserver: Sendable {
    /// The descriptors a command that is handed the jobserver finds it on.
    static let clientDescriptors: (read: Int32, write: Int32) = (3, 4)

    /// The most tokens a pool holds: a pipe holds 64 KiB, and a larger `--max-concurrent` is
    /// no limit on any machine. A run allowing more has no jobserver.
    static let mostSlots = 4096

    /// How many tokens the pool has: the run's `--max-concurrent`.
    let slots: Int
    /// The FIFO, for clients that open it by name (`fifo:PATH`).
    let path: String
    /// What ``makeflags(after:)`` adds: made once, not for every command.
    let clientFlags: String
    /// procflow's own end: read and write, non-blocking, close-on-exec.
    let own: Int32
    /// The ends a command gets as ``clientDescriptors`` (`R,W`): an open file description of
    /// their own, so that a client making its end non-blocking (make 4.3 does) leaves
    /// procflow's as it is; close-on-exec, numbered above the descriptors a command gets.
    let clientEnds: (read: Int32, write: Int32)
    /// A pipe that wakes the thread waiting on the FIFO for steps.
    let wake: (read: Int32, write: Int32)
    let state = Locked(State())

    /// What procflow knows of the pool.
    struct State {
        /// Tokens procflow holds for steps, running ones and those still gathering theirs.
        var held = 0
        /// Running steps whose commands were handed the jobserver.
        var clients = 0
        /// Steps waiting for tokens, first come first served.
        var waiting: [Waiter] = []
        /// A thread waits on the FIFO for the steps in `waiting`.
        var watching = false
        /// Numbers the requests.
        var requests = 0
        /// The run is over: no token is taken or put back.
        var closed = false
        /// The descriptors are open: closed by ``close()``, or by the watcher as it leaves if it
        /// was waiting on them then, and touched by nothing after.
        var descriptorsOpen = true
        /// In a pool procflow joined, its own slot is free for a step to take.
        var implicitSlotFree = false
    }

    /// Whether procflow made the pool, and so restores and removes it (not a pool it joined).
    let ownsPool: Bool

    /// A pool of `slots` tokens in a new FIFO of its own under `temporaryDirectory`.
    ///
    /// The FIFO is made 0600 under a name no other is using (the process id and a random
    /// part); its opened end is then checked to be a FIFO of this user's that others cannot
    /// open, so that a FIFO another user put in its place in a directory that is not sticky
    /// is refused. (A private directory around it cost a `mkdir` and an `rmdir`: a fiftieth
    /// of a short run.)
    ///
    /// - Parameter make: makes the FIFO at a path (`mkfifo`, 0600); a test's stands for
    ///   another user's FIFO put in its place.
    /// - Throws: a ``StepError`` saying what could not be made.
    convenience init(
        slots: Int, temporaryDirectory: String,
        making make: (String) -> Int32 = { mkfifo($0, 0o600) }
    ) throws(StepError) {
        var path = ""
        for attempt in 1... {
            path =
                temporaryDirectory + "/procflow-jobserver-\(getpid())-"
                + String(UInt32.random(in: 0...UInt32.max), radix: 36)
            if make(path) == 0 { break }
            guard errno == EEXIST, attempt < 100 else {
                throw Self.failure("cannot make a FIFO in \(temporaryDirectory)")
            }
        }
        do throws(StepError) {
            try self.init(slots: slots, path: path, owned: true)
        } catch {
            unlink(path)
            throw error
        }
        var status = stat()
        guard fstat(own, &status) == 0, status.st_mode & S_IFMT == S_IFIFO,
            status.st_uid == geteuid(), status.st_mode & 0o077 == 0
        else {
            // Removed only if it is this user's: another's file is left to its owner.
            closeDescriptors()
            if status.st_uid == geteuid() { unlink(path) }
            throw StepError(
                .spawnFailed,
                "cannot make the jobserver: \(path) was replaced by another file; run with --no-jobserver to go without"
            )
        }
        writeTokens(slots)
    }

    /// The pool of the FIFO at `path`, made by another (`fifo:PATH` in procflow's own
    /// `MAKEFLAGS`), for `slots` steps at most.
    ///
    /// - Throws: a ``StepError`` when `path` is no FIFO that opens.
    convenience init(joining path: String, slots: Int) throws(StepError) {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFIFO else {
            throw StepError(
                .spawnFailed,
                "cannot join the jobserver MAKEFLAGS names: \(path) is not a FIFO; give -j (or --no-jobserver) to go without"
            )
        }
        try self.init(slots: slots, path: path, owned: false)
        state.withLock { $0.implicitSlotFree = true }
    }

    /// Opens the FIFO at `path` for procflow and its commands, and the wake-up pipe.
    private init(slots: Int, path: String, owned: Bool) throws(StepError) {
        self.slots = slots
        self.path = path
        let (read, write) = Self.clientDescriptors
        clientFlags =
            " -j\(slots) --jobserver-fds=\(read),\(write) --jobserver-auth=fifo:\(path) --jobserver-f=\(read),\(write)"
        ownsPool = owned
        var opened: [Int32] = []
        do throws(StepError) {
            own = try Self.open(path, O_RDWR | O_NONBLOCK, into: &opened)
            // Neither open waits: `own` is a reader and a writer already.
            let read = try Self.open(path, O_RDONLY, into: &opened)
            let write = try Self.open(path, O_WRONLY, into: &opened)
            clientEnds = (read, write)
            var ends: [Int32] = [0, 0]
            guard procflow_pipe_cloexec(&ends) == 0 else {
                throw Self.failure("cannot make a pipe")
            }
            opened += ends
            for end in ends { _ = fcntl(end, F_SETFL, O_NONBLOCK) }
            wake = (ends[0], ends[1])
        } catch {
            for descriptor in opened { Glibc.close(descriptor) }
            throw error
        }
    }

    /// Opens the FIFO close-on-exec, on a descriptor above 9 (clear of those a command gets).
    private static func open(_ path: String, _ flags: Int32, into opened: inout [Int32])
        throws(StepError) -> Int32
    {
        let first = Glibc.open(path, flags | O_CLOEXEC)
        guard first >= 0 else { throw failure("cannot open \(path)") }
        let descriptor = fcntl(first, F_DUPFD_CLOEXEC, 10)
        Glibc.close(first)
        guard descriptor >= 0 else { throw failure("cannot open \(path)") }
        opened.append(descriptor)
        return descriptor
    }

    /// Why the jobserver could not be made, with `errno`'s reason.
    private static func failure(_ what: String) -> StepError {
        StepError(
            .spawnFailed,
            "cannot make the jobserver: \(what): \(String(cString: strerror(errno))); run with --no-jobserver to go without"
        )
    }

    /// Puts `count` tokens in the FIFO.
    func writeTokens(_ count: Int) {
        guard count > 0 else { return }
        // On the stack (at most ``mostSlots`` bytes): a step puts its token back at its end.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { tokens in
            tokens.initialize(repeating: UInt8(ascii: "+"))
            _ = try? POSIXIO.write(UnsafeRawBufferPointer(tokens), to: own)
        }
    }

    /// Takes up to `count` tokens from the FIFO without waiting; how many it took.
    func readTokens(_ count: Int) -> Int {
        guard count > 0 else { return 0 }
        let taken = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            Glibc.read(own, buffer.baseAddress, count)
        }
        return max(0, taken)
    }

    /// Wakes the thread waiting on the FIFO, so that it looks at the waiting steps again;
    /// nothing once the descriptors are closed (their numbers may be another's by then).
    func wakeWatcher() {
        state.withLock { state in
            if state.descriptorsOpen { writeWakeUp() }
        }
    }

    /// Writes a byte to the wake-up pipe; under the state's lock, with the descriptors open.
    private func writeWakeUp() {
        var byte: UInt8 = 1
        _ = Glibc.write(wake.write, &byte, 1)
    }

    /// Closes the descriptors and removes the FIFO if procflow made it: the run is over. A
    /// watcher waiting on the FIFO is woken and closes them as it leaves: closed under it,
    /// they could be another thread's when it reads the wake-up.
    func close() {
        let closesNow = state.withLock { state -> Bool? in
            guard !state.closed else { return nil }
            state.closed = true
            guard state.watching else {
                state.descriptorsOpen = false
                return true
            }
            writeWakeUp()
            return false
        }
        guard let closesNow else { return }
        if closesNow { closeDescriptors() }
        if ownsPool { unlink(path) }
    }

    /// Closes the FIFO's descriptors and the wake-up pipe: once, by whoever set
    /// ``State/descriptorsOpen`` false.
    func closeDescriptors() {
        for descriptor in [own, clientEnds.read, clientEnds.write, wake.read, wake.write] {
            Glibc.close(descriptor)
        }
    }
}

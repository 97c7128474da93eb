import CProcflow
import Dispatch
import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What a run's thread does: reads both pipes and waits for the exit, until both pipes are
/// closed and the command has exited — or until the pipe grace period after the exit has
/// passed.
///
/// Most commands close their pipes by exiting: then a blocking waitpid(2) collects the exit.
/// A command still running after ``ProcessRun/pidfdDelay`` gets a pidfd (opening one costs
/// about as much as a short command's whole bookkeeping), so that its exit is seen even while
/// something it started holds its pipes open.
struct ProcessWatch: ~Copyable {
    private static let stdoutIndex = 0
    private static let stderrIndex = 1
    private static let pidfdIndex = 2
    private static let streams: [ShellProcedure.Stream] = [.stdout, .stderr]

    private let run: ProcessRun
    private let launch: CommandLaunch
    /// stdout, stderr and the pidfd (-1 until opened, and once closed).
    private var descriptors: [pollfd]
    private var pidfdOpened = false
    private let pidfdDue: UInt64
    private var splitters: [LineSplitter]
    /// Not zeroed: only what read(2) fills is ever looked at.
    private let buffer = UnsafeMutableRawBufferPointer.allocate(
        byteCount: 64 * 1024, alignment: 16)
    private var termination: CommandOutcome.Termination?
    /// Once the command has exited: when to stop reading pipes that leftovers hold open.
    private var giveUpReading: Date?
    private var captured: [UInt8] = []
    private var captureExceeded = false
    private var stderrTail = RingBuffer<String>()

    init(run: ProcessRun, launch: CommandLaunch, stdout: Int32, stderr: Int32) {
        self.run = run
        self.launch = launch
        splitters = [LineSplitter(secrets: launch.secrets), LineSplitter(secrets: launch.secrets)]
        descriptors = [
            pollfd(fd: stdout, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stderr, events: Int16(POLLIN), revents: 0),
            pollfd(fd: -1, events: Int16(POLLIN), revents: 0),
        ]
        pidfdDue = DispatchTime.now().uptimeNanoseconds + ProcessRun.pidfdDelay * 1_000_000
    }

    deinit {
        buffer.deallocate()
    }

    /// Watches until the run is over; returns how it went.
    mutating func watch() -> CommandOutcome {
        while termination == nil || isOpen(Self.stdoutIndex) || isOpen(Self.stderrIndex) {
            if termination == nil, !isOpen(Self.stdoutIndex), !isOpen(Self.stderrIndex) {
                reap(blocking: true)  // nothing left to read: only the exit to wait for
                continue
            }
            guard let timeout = pollTimeout() else { break }
            if poll(&descriptors, nfds_t(descriptors.count), timeout) < 0, errno != EINTR {
                // Nothing more can be read: keep what came, and wait for the real exit status.
                for index in [Self.stdoutIndex, Self.stderrIndex] where isOpen(index) {
                    close(stream: index)
                }
                continue
            }
            openPidfdWhenDue()
            readReadyPipes()
            if termination == nil, pidfdOpened,
                !isOpen(Self.pidfdIndex) || descriptors[Self.pidfdIndex].revents != 0
            {
                reap(blocking: false)
            }
        }
        // Pipes still open here are held by leftovers: stop reading them.
        for index in [Self.stdoutIndex, Self.stderrIndex] where isOpen(index) {
            close(stream: index)
        }
        return CommandOutcome(
            termination: termination ?? .unknown("it was not seen to exit"), captured: captured,
            captureExceeded: captureExceeded, stderrTail: Array(stderrTail))
    }

    private func isOpen(_ index: Int) -> Bool {
        descriptors[index].fd >= 0
    }

    /// How long poll(2) may wait, in milliseconds (-1 for ever); `nil` once it is time to give
    /// up on pipes that leftovers hold open.
    private func pollTimeout() -> Int32? {
        if let giveUpReading {
            let left = giveUpReading.timeIntervalSinceNow
            return left <= 0 ? nil : Int32(left * 1000) + 1
        }
        if !pidfdOpened {
            let now = DispatchTime.now().uptimeNanoseconds
            return now >= pidfdDue ? 0 : Int32((pidfdDue - now) / 1_000_000) + 1
        }
        // No pidfd (Linux before 5.3): look for the exit now and then.
        return isOpen(Self.pidfdIndex) ? -1 : 50
    }

    /// Opens the pidfd once the command has run for ``ProcessRun/pidfdDelay`` — even while
    /// output keeps coming: a leftover may write on after the exit.
    private mutating func openPidfdWhenDue() {
        guard termination == nil, !pidfdOpened, DispatchTime.now().uptimeNanoseconds >= pidfdDue
        else { return }
        pidfdOpened = true
        descriptors[Self.pidfdIndex].fd = procflow_pidfd_open(run.pid)
    }

    private mutating func readReadyPipes() {
        for index in [Self.stdoutIndex, Self.stderrIndex]
        where isOpen(index) && descriptors[index].revents != 0 {
            let count = read(descriptors[index].fd, buffer.baseAddress, buffer.count)
            if count > 0 {
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                if index == Self.stdoutIndex { capture(chunk) }
                deliver(splitters[index].lines(in: chunk), from: index)
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                close(stream: index)
            }
        }
    }

    /// Keeps stdout when it is captured, stopping the command once it goes over the limit.
    private mutating func capture(_ chunk: UnsafeRawBufferPointer) {
        guard launch.captureStdout, !captureExceeded else { return }
        if captured.count + chunk.count > launch.captureLimit {
            captureExceeded = true
            captured = []
            run.stopForExceedingCapture()
        } else {
            captured.append(contentsOf: chunk)
        }
    }

    private mutating func deliver(_ lines: [Substring], from index: Int) {
        guard !lines.isEmpty else { return }
        if index == Self.stderrIndex {
            for line in lines {
                stderrTail.append(String(line))
                if stderrTail.count > ProcessRun.stderrTailLength { _ = stderrTail.popFirst() }
            }
        }
        launch.onOutput?(Self.streams[index], lines)
    }

    private mutating func close(stream index: Int) {
        Glibc.close(descriptors[index].fd)
        descriptors[index].fd = -1
        deliver(splitters[index].finish(), from: index)
    }

    /// Collects the command's exit status, if it has exited (or, `blocking`, once it has).
    private mutating func reap(blocking: Bool) {
        var status: Int32 = 0
        var reaped: pid_t
        repeat {
            reaped = waitpid(run.pid, &status, blocking ? 0 : WNOHANG)
        } while reaped < 0 && errno == EINTR
        if reaped == 0 { return }  // still running
        if reaped < 0 {
            // ECHILD: something else reaped it (SIGCHLD ignored makes the kernel do so).
            termination = .unknown("waitpid failed: \(String(cString: strerror(errno)))")
        } else {
            termination = Self.termination(fromWaitStatus: status)
        }
        if isOpen(Self.pidfdIndex) { Glibc.close(descriptors[Self.pidfdIndex].fd) }
        descriptors[Self.pidfdIndex].fd = -1
        run.leaderReaped()
        giveUpReading = Date().addingTimeInterval(launch.pipeGracePeriod)
    }

    /// What a wait status from waitpid(2) says of how the process ended.
    static func termination(fromWaitStatus status: Int32) -> CommandOutcome.Termination {
        let signal = status & 0x7F
        if signal == 0 { return .exited((status >> 8) & 0xFF) }
        if signal != 0x7F { return .signaled(signal) }
        return .unknown("it was stopped, not ended (wait status \(status))")
    }
}

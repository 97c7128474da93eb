import Foundation
import ProcedureKit

/// A step's command submitted to Slurm as a job (or a task of a job array): what the step
/// holds while it runs. Cancelling it cancels the job.
final class SlurmJob: RunningCommand, @unchecked Sendable {
    // @unchecked Sendable: every property is a constant; what changes is the controller's.

    let launch: CommandLaunch
    let completion: @Sendable (CommandOutcome) -> Void
    private weak var controller: SlurmController?

    init(
        launch: CommandLaunch, controller: SlurmController,
        completion: @escaping @Sendable (CommandOutcome) -> Void
    ) {
        self.launch = launch
        self.controller = controller
        self.completion = completion
    }

    /// Cancels the job (`scancel`): Slurm signals its processes, then kills them after its
    /// own grace period (`KillWait`).
    func terminate(signal: Int32, gracePeriod: TimeInterval) {
        controller?.cancel(self)
    }

    var processGroup: pid_t? { nil }
}

/// What the controller knows of a job it submitted, and what it read of its output.
struct TrackedJob {
    let job: SlurmJob
    /// The prefix of its task files.
    let prefix: String
    /// Its id in Slurm (`123`, or `123_4` for a task of an array).
    let slurmID: String
    let submitted: Date
    var stdout: OutputFollower
    var stderr: OutputFollower
    var captured: [UInt8] = []
    var captureExceeded = false
    var stderrTail = RingBuffer<String>()
    var status: SlurmJobStatus?
    /// When procflow asked Slurm to cancel it, if it did.
    var cancelSent: Date?
    /// Why procflow cancelled it, when the step did not ask: a wait in the queue too long.
    var ownReason: String?
    /// Polls in a row that did not find it.
    var missing = 0

    init(job: SlurmJob, prefix: String, slurmID: String) {
        self.job = job
        self.prefix = prefix
        self.slurmID = slurmID
        submitted = Date()
        stdout = OutputFollower(path: prefix + ".out", secrets: job.launch.secrets)
        stderr = OutputFollower(path: prefix + ".err", secrets: job.launch.secrets)
    }

    /// Reads what the job wrote since the last look and hands it on; false if stdout went
    /// over the capture limit just now.
    mutating func follow() -> Bool {
        let launch = job.launch
        let (outLines, bytes) = stdout.read()
        var withinLimit = true
        if launch.captureStdout, !captureExceeded, !bytes.isEmpty {
            if captured.count + bytes.count > launch.captureLimit {
                captureExceeded = true
                captured = []
                withinLimit = false
            } else {
                captured += bytes
            }
        }
        deliver(outLines, .stdout)
        deliver(stderr.read().lines, .stderr)
        return withinLimit
    }

    /// Reads the rest, once the job is over.
    mutating func followToEnd() {
        _ = follow()
        deliver(stdout.finish(), .stdout)
        deliver(stderr.finish(), .stderr)
    }

    private mutating func deliver(_ lines: [Substring], _ stream: ShellProcedure.Stream) {
        guard !lines.isEmpty else { return }
        if stream == .stderr {
            for line in lines {
                stderrTail.append(String(line))
                if stderrTail.count > ProcessRun.stderrTailLength { _ = stderrTail.popFirst() }
            }
        }
        job.launch.onOutput?(stream, lines)
    }
}

import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Submits a run's jobs, follows them and cancels them, on one thread of its own: no client
/// process is kept per job, so a thousand jobs in flight cost the head node one thread and a
/// `squeue` now and then.
///
/// The thread submits what steps hand it (those of one `forEach` that arrive together, asking
/// for the same things, as one job array), asks `squeue` where every job stands — all of
/// them in one call, more rarely the longer nothing changes — reads what running jobs wrote,
/// and reports each job's end to its step.
final class SlurmController: @unchecked Sendable {
    // @unchecked Sendable: `shared` is a `Locked` mutex and `wake` guards the thread's sleep;
    // `tracked` and `submissions` are touched only by the controller's thread.

    private struct Shared {
        var queued: [SlurmJob] = []
        /// When the oldest and the newest of `queued` came.
        var firstQueued = Date.distantPast
        var lastQueued = Date.distantPast
        var cancels: [SlurmJob] = []
        var threadRunning = false
        var ending = false
        /// Jobs handed to the thread and not yet reported over.
        var underWay = 0
        var counts = Counts()
    }

    /// What the run's jobs came to, for the line at the end.
    struct Counts {
        var submitted = 0
        var arrays = 0
        var completed = 0
        var failed = 0
        var cancelled = 0
        var calls = 0
        var seconds = 0.0
        /// Jobs of runs that ended without ending them (procflow was killed), cancelled now.
        var leftovers = 0
    }

    /// How long instances of a `forEach` arriving one after another are gathered into one
    /// array: until none came for this long…
    static let gatherQuiet: TimeInterval = 0.03
    /// …or for at most this long.
    static let gatherLongest: TimeInterval = 0.3
    /// The first poll after a change, and the longest wait between polls.
    static let shortestPoll: TimeInterval = 0.1
    static let longestPoll: TimeInterval = 2
    /// The most job ids one `squeue` is asked about, and tasks in one array.
    static let idsPerQuery = 400
    static let tasksPerArray = 500
    /// How long a job may go unanswered by `squeue` (or unseen in it) before its end is
    /// reported unknown.
    static let silenceLimit: TimeInterval = 300
    /// How long a cancelled job gets to end before the wait for it is given up.
    static let cancelWait: TimeInterval = 120

    let directory: String
    private let tool: SlurmTool
    private let shared = Locked(Shared())
    private let wake = NSCondition()
    private var tracked: [ObjectIdentifier: TrackedJob] = [:]
    private var submissionCount = 0
    private var scriptPath: String?
    /// When `squeue` last answered.
    private var lastAnswer = Date()
    /// Whether `sacct` may answer: until it first fails.
    private var hasAccounting = true
    /// Whether the jobs still in flight were cancelled because the run ended.
    private var cancelledForEnd = false

    init(directory: String, environment: [String: String]) {
        self.directory = directory
        tool = SlurmTool(environment: environment)
    }

    // MARK: - What steps ask

    /// Hands `job` to the thread for submission.
    func submit(_ job: SlurmJob) {
        let startThread = shared.withLock { shared -> Bool in
            if shared.queued.isEmpty { shared.firstQueued = Date() }
            shared.queued.append(job)
            shared.lastQueued = Date()
            shared.underWay += 1
            defer { shared.threadRunning = true }
            return !shared.threadRunning
        }
        if startThread {
            let thread = Thread { [self] in loop() }
            thread.name = "procflow-slurm"
            thread.start()
        }
        signal()
    }

    /// Cancels `job`: at once if it was not submitted yet, else with `scancel`.
    func cancel(_ job: SlurmJob) {
        let unsubmitted = shared.withLock { shared -> Bool in
            if let index = shared.queued.firstIndex(where: { $0 === job }) {
                shared.queued.remove(at: index)
                return true
            }
            shared.cancels.append(job)
            return false
        }
        if unsubmitted { report(job, .signaled(SIGTERM), counted: \.cancelled) }
        signal()
    }

    var underWay: Int { shared.withLock { $0.underWay } }

    /// Cancels every job still under way and waits, at most `gracePeriod` after they were
    /// asked to end (or until `hurry`), for them to be over; stops the thread; returns the
    /// line on what the run's jobs came to, if any was submitted.
    func end(gracePeriod: TimeInterval, hurry: @escaping @Sendable () -> Bool) -> String? {
        let running = shared.withLock { shared -> Bool in
            shared.ending = true
            return shared.threadRunning
        }
        signal()
        let deadline = Date().addingTimeInterval(gracePeriod + 5)
        while running, shared.withLock({ $0.threadRunning }), Date() < deadline, !hurry() {
            usleep(10_000)
        }
        try? FileManager.default.removeItem(atPath: directory)
        let counts = shared.withLock { $0.counts }
        guard counts.submitted > 0 else { return nil }
        var parts = ["\(counts.submitted) job\(counts.submitted == 1 ? "" : "s") submitted"]
        if counts.arrays > 0 {
            parts[0] += " (\(counts.arrays) array\(counts.arrays == 1 ? "" : "s"))"
        }
        parts.append(
            "\(counts.completed) completed, \(counts.failed) failed, \(counts.cancelled) cancelled")
        parts.append(
            "\(counts.calls) calls to sbatch, squeue and scancel (\(String(format: "%.1f", counts.seconds)) s)"
        )
        if counts.leftovers > 0 {
            parts.append("cancelled \(counts.leftovers) left by a run that was killed")
        }
        return "slurm: " + parts.joined(separator: "; ")
    }

    private func signal() {
        wake.lock()
        wake.signal()
        wake.unlock()
    }

    // MARK: - The thread

    private func loop() {
        var interval = Self.shortestPoll
        var nextPoll = Date()
        while true {
            let (queued, cancels, ending) = takeWork(pollingAt: nextPoll)
            var changed = false
            if ending {
                // The run is over: nothing more is submitted, and nothing is left running.
                for job in queued { report(job, .signaled(SIGTERM), counted: \.cancelled) }
                if !cancelledForEnd { sendCancels(tracked.values.map(\.job)) }
                cancelledForEnd = true
            } else if !queued.isEmpty {
                submit(queued)
                changed = true
            }
            if !cancels.isEmpty { sendCancels(cancels) }
            if !tracked.isEmpty, Date() >= nextPoll || changed {
                if poll() { changed = true }
                interval = changed ? Self.shortestPoll : min(interval * 1.5, Self.longestPoll)
                nextPoll = Date().addingTimeInterval(interval)
            }
            let done = shared.withLock { shared -> Bool in
                guard tracked.isEmpty, shared.queued.isEmpty, shared.cancels.isEmpty else {
                    return false
                }
                // Idle: the thread ends, and the next submission starts another.
                shared.threadRunning = false
                return true
            }
            if done { return }
        }
    }

    /// Waits until there is something to submit or cancel, or until `pollingAt` when jobs
    /// are in flight; instances of a `forEach` are gathered a moment before being taken.
    private func takeWork(pollingAt nextPoll: Date) -> (
        queued: [SlurmJob], cancels: [SlurmJob], ending: Bool
    ) {
        wake.lock()
        defer { wake.unlock() }
        while true {
            let now = Date()
            let (ready, gatherUntil, ending) = shared.withLock { shared -> (Bool, Date?, Bool) in
                let gathering = shared.queued.contains { $0.launch.job.arrayKey != nil }
                let quiet = min(
                    shared.lastQueued.addingTimeInterval(Self.gatherQuiet),
                    shared.firstQueued.addingTimeInterval(Self.gatherLongest))
                // Once the end's cancels are sent, the end only waits for the next poll.
                let endDue = shared.ending && !cancelledForEnd
                if !shared.queued.isEmpty, gathering, quiet > now, !endDue {
                    return (!shared.cancels.isEmpty, quiet, endDue)
                }
                return (
                    !shared.queued.isEmpty || !shared.cancels.isEmpty || endDue, nil, endDue
                )
            }
            if ready || ending || (!tracked.isEmpty && now >= nextPoll) {
                return shared.withLock { shared in
                    let taken = (shared.queued, shared.cancels, shared.ending)
                    shared.queued = []
                    shared.cancels = []
                    return taken
                }
            }
            let until = [gatherUntil, tracked.isEmpty ? nil : nextPoll].compactMap { $0 }.min()
            if let until {
                _ = wake.wait(until: until)
            } else {
                wake.wait()
            }
        }
    }

    // MARK: - Submitting

    private func submit(_ jobs: [SlurmJob]) {
        guard let script = prepareDirectory() else {
            let problem = "cannot prepare \(directory) for the run's Slurm jobs"
            for job in jobs { report(job, .notStarted(problem), counted: \.failed) }
            return
        }
        var groups: [[SlurmJob]] = []
        var arrays: [JobRequest: Int] = [:]
        for job in jobs {
            var request = job.launch.job
            request.name = ""
            if request.arrayKey != nil, let index = arrays[request],
                groups[index].count < Self.tasksPerArray
            {
                groups[index].append(job)
            } else {
                if request.arrayKey != nil { arrays[request] = groups.count }
                groups.append([job])
            }
        }
        for group in groups { submitGroup(group, script: script) }
    }

    private func submitGroup(_ group: [SlurmJob], script: String) {
        submissionCount += 1
        var request = group[0].launch.job
        if group.count > 1, let key = request.arrayKey { request.name = key }
        let submission = SlurmSubmission(
            base: "\(directory)/\(submissionCount)", request: request,
            launches: group.map(\.launch))
        if let problem = submission.writeTaskFiles() {
            for job in group { report(job, .notStarted(problem), counted: \.failed) }
            return
        }
        let result = call(submission.arguments(script: script))
        let jobID = result.stdout.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard result.succeeded, let jobID, !jobID.isEmpty, jobID.allSatisfy(\.isNumber) else {
            let reason =
                result.message.hasPrefix("command not found")
                ? "cannot submit a Slurm job: sbatch is not in PATH (run procflow where Slurm's commands are, such as a login node)"
                : "sbatch refused the job: \(result.message)"
            for job in group { report(job, .notStarted(reason), counted: \.failed) }
            return
        }
        shared.withLock { shared in
            shared.counts.submitted += group.count
            if group.count > 1 { shared.counts.arrays += 1 }
        }
        // Kept until the run ends, so that a run after a killed one can cancel what it left.
        appendLine(jobID, to: directory + "/jobs")
        for (index, job) in group.enumerated() {
            tracked[ObjectIdentifier(job)] = TrackedJob(
                job: job, prefix: submission.taskPrefix(index),
                slurmID: submission.slurmID(of: index, jobID: jobID))
        }
    }

    /// Creates the run's directory (private) and its batch script; the script's path. The
    /// first time, cancels the jobs that runs killed before they could end them left behind.
    private func prepareDirectory() -> String? {
        if let scriptPath { return scriptPath }
        guard POSIXIO.makeDirectories(directory, mode: 0o700) else { return nil }
        cancelLeftovers()
        let path = directory + "/job.sh"
        do {
            try POSIXIO.writeAtomically(
                Array(SlurmSubmission.script.utf8), to: path, mode: 0o700, directoryMode: 0o700,
                sync: false)
        } catch {
            return nil
        }
        scriptPath = path
        return path
    }

    /// Cancels the jobs listed in the directories of other runs of this machine whose
    /// procflow is gone (it was killed, or the machine restarted), and removes those
    /// directories. A run's directory is named `RUNID@HOST`; the last part of the run id
    /// starts with its process id.
    private func cancelLeftovers() {
        let parent = (directory as NSString).deletingLastPathComponent
        let own = (directory as NSString).lastPathComponent
        guard let at = own.lastIndex(of: "@") else { return }
        let host = own[at...]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        var ids: [String] = []
        for name in names where name != own && name.hasSuffix(host) {
            let run = name.dropLast(host.count)
            let last = run.split(separator: "_").last ?? ""
            guard let pid = Int32(last.split(separator: "-").first ?? ""), pid > 0,
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            let path = parent + "/" + name
            let listed = (try? String(contentsOfFile: path + "/jobs", encoding: .utf8)) ?? ""
            ids += listed.split(separator: "\n").map(String.init).filter {
                !$0.isEmpty && $0.allSatisfy(\.isNumber)
            }
            try? FileManager.default.removeItem(atPath: path)
        }
        guard !ids.isEmpty else { return }
        let active = call(
            ["squeue", "--noheader", "--jobs=\(ids.joined(separator: ","))", "--format=%i"],
            timeout: 60
        ).stdout.split(separator: "\n").count
        _ = call(["scancel"] + ids, timeout: 30)
        shared.withLock { $0.counts.leftovers += active }
    }

    private func appendLine(_ line: String, to path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        POSIXIO.write(line + "\n", to: descriptor)
    }

    // MARK: - Following

    /// Asks `squeue` where every job stands, reads what running jobs wrote, and reports the
    /// jobs that are over; true if any job changed state.
    private func poll() -> Bool {
        let ids = tracked.values.map(\.slurmID)
        var statuses: [String: SlurmJobStatus] = [:]
        var answered = true
        var index = ids.startIndex
        while index < ids.endIndex {
            let chunk = ids[index..<min(index + Self.idsPerQuery, ids.endIndex)]
            index = chunk.endIndex
            let result = call(
                [
                    "squeue", "--noheader", "--array", "--states=all",
                    "--jobs=\(chunk.joined(separator: ","))", "--Format=\(SlurmJobStatus.format)",
                ], timeout: 60)
            if result.succeeded || result.message.contains("Invalid job id") {
                for status in SlurmJobStatus.parse(result.stdout) { statuses[status.id] = status }
            } else {
                answered = false
            }
        }
        let now = Date()
        if answered {
            lastAnswer = now
            // Gone from squeue (kept only MinJobAge after its end): asked of accounting.
            let unseen = tracked.values.filter { $0.missing >= 1 && statuses[$0.slurmID] == nil }
            if !unseen.isEmpty {
                for status in accounting(unseen.map(\.slurmID)) { statuses[status.id] = status }
            }
        }
        var changed = false
        for key in Array(tracked.keys) {
            guard var job = tracked[key] else { continue }
            if let status = statuses[job.slurmID] {
                changed = changed || job.status?.state != status.state
                job.status = status
                job.missing = 0
            } else if answered {
                job.missing += 1
            }
            if !job.follow(), job.cancelSent == nil {
                // Over the capture limit: stopped, as a local command is.
                job.cancelSent = now
                _ = call(["scancel", job.slurmID], timeout: 30)
            }
            if let reason = overdue(&job, now: now) { job.ownReason = job.ownReason ?? reason }
            tracked[key] = job
            if job.status?.isOver == true || giveUp(job, now: now) != nil {
                finish(key)
                changed = true
            }
        }
        return changed
    }

    /// What Slurm's accounting (`sacct`) says of `ids`, where the cluster keeps it; nothing
    /// where it does not (no slurmdbd) or is not asked any more (once it failed).
    private func accounting(_ ids: [String]) -> [SlurmJobStatus] {
        guard hasAccounting else { return [] }
        let result = call(
            [
                "sacct", "--noheader", "--parsable2", "--allocations",
                "--jobs=\(ids.joined(separator: ","))",
                "--format=\(SlurmJobStatus.accountingFormat)",
            ], timeout: 60)
        guard result.succeeded else {
            hasAccounting = false
            return []
        }
        return SlurmJobStatus.parseAccounting(result.stdout)
    }

    /// Cancels a job that waited in the queue longer than its `pendingTimeout`; why, if it
    /// did just now.
    private func overdue(_ job: inout TrackedJob, now: Date) -> String? {
        guard let limit = job.job.launch.job.slurm.pendingTimeout, let status = job.status,
            status.isPending, job.cancelSent == nil, now.timeIntervalSince(job.submitted) > limit
        else { return nil }
        job.cancelSent = now
        _ = call(["scancel", job.slurmID], timeout: 30)
        return
            "Slurm job \(job.slurmID) waited in the queue for more than \(formatDuration(limit)) (\(status.reason))"
    }

    /// Why the wait for `job` is over though Slurm has not said it ended, if it is.
    private func giveUp(_ job: TrackedJob, now: Date) -> String? {
        if job.missing >= 3 {
            return
                "Slurm no longer knows job \(job.slurmID) (squeue keeps a finished job for MinJobAge, and sacct has no record of it)"
        }
        if now.timeIntervalSince(lastAnswer) > Self.silenceLimit {
            return "squeue has not answered for \(Int(Self.silenceLimit)) s"
        }
        if let sent = job.cancelSent, now.timeIntervalSince(sent) > Self.cancelWait {
            return
                "Slurm job \(job.slurmID) did not end within \(Int(Self.cancelWait)) s of scancel"
        }
        return nil
    }

    /// Reports the end of the job under `key`, with the rest of its output, and removes its
    /// files.
    private func finish(_ key: ObjectIdentifier) {
        guard var job = tracked.removeValue(forKey: key) else { return }
        job.followToEnd()
        let cancelledByProcflow = job.cancelSent != nil
        var termination: CommandOutcome.Termination
        if let status = job.status, status.isOver {
            termination = status.termination(cancelledByProcflow: cancelledByProcflow)
        } else {
            termination = .unknown(giveUp(job, now: Date()) ?? "Slurm did not say how it ended")
        }
        if FileManager.default.fileExists(atPath: job.prefix + ".nocd") {
            termination = .ended(
                "Slurm job \(job.slurmID) could not enter its working directory \(job.job.launch.workingDirectory ?? ".") on its node: it must be on a filesystem every node sees"
            )
        } else if let reason = job.ownReason, !job.captureExceeded {
            termination = .ended(reason)
        }
        for suffix in [".args", ".in", ".out", ".err", ".nocd"] { unlink(job.prefix + suffix) }
        let counter: WritableKeyPath<Counts, Int> =
            switch termination {
            case .exited(0): \.completed
            case .signaled where cancelledByProcflow: \.cancelled
            default: \.failed
            }
        report(
            job.job, termination, counted: counter, captured: job.captured,
            captureExceeded: job.captureExceeded, stderrTail: Array(job.stderrTail))
    }

    private func report(
        _ job: SlurmJob, _ termination: CommandOutcome.Termination,
        counted counter: WritableKeyPath<Counts, Int>, captured: [UInt8] = [],
        captureExceeded: Bool = false, stderrTail: [String] = []
    ) {
        shared.withLock { shared in
            shared.underWay -= 1
            shared.counts[keyPath: counter] += 1
        }
        job.completion(
            CommandOutcome(
                termination: termination, captured: captured, captureExceeded: captureExceeded,
                stderrTail: stderrTail))
    }

    // MARK: - Cancelling

    /// `scancel`s the submitted jobs among `jobs` (many to one call).
    private func sendCancels(_ jobs: [SlurmJob]) {
        let now = Date()
        var ids: [String] = []
        for job in jobs {
            let key = ObjectIdentifier(job)
            guard var tracked = tracked[key], tracked.cancelSent == nil else { continue }
            tracked.cancelSent = now
            self.tracked[key] = tracked
            ids.append(tracked.slurmID)
        }
        var index = ids.startIndex
        while index < ids.endIndex {
            let chunk = ids[index..<min(index + Self.idsPerQuery, ids.endIndex)]
            index = chunk.endIndex
            _ = call(["scancel"] + chunk, timeout: 30)
        }
    }

    /// Runs a Slurm client program, counting the call and its time.
    private func call(_ arguments: [String], timeout: TimeInterval = 120) -> SlurmTool.Result {
        let started = Date()
        let result = tool.run(arguments, timeout: timeout)
        let seconds = Date().timeIntervalSince(started)
        shared.withLock { shared in
            shared.counts.calls += 1
            shared.counts.seconds += seconds
        }
        return result
    }
}

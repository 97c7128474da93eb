import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where a Slurm job stands, as one line of `squeue -r -t all -O JobArrayID,State,exit_code,Reason`
/// tells it, and what its end makes of the step.
struct SlurmJobStatus: Equatable, Sendable {
    /// The job's id, `123` or, for a task of an array, `123_4`.
    var id: String
    /// `PENDING`, `RUNNING`, `COMPLETED`, `FAILED`, `TIMEOUT`, …
    var state: String
    /// The batch script's wait status, as waitpid(2) gives it.
    var waitStatus: Int32
    /// Why it waits or how it ended, in Slurm's words (`Resources`, `NonZeroExitCode`).
    var reason: String

    /// The `squeue` output format the lines are parsed in.
    static let format = "JobArrayID:|,State:|,exit_code:|,Reason"

    /// The states a job does not leave.
    static let endStates: Set<String> = [
        "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED",
        "BOOT_FAIL", "DEADLINE", "REVOKED", "SPECIAL_EXIT",
    ]

    /// Whether the job is over: in an end state (not `COMPLETING`, which still has processes).
    var isOver: Bool { Self.endStates.contains(state) }

    /// Whether it waits in the queue.
    var isPending: Bool { state == "PENDING" || state == "REQUEUED" || state == "CONFIGURING" }

    /// The statuses in `squeue`'s output; lines it cannot read are left out.
    static func parse(_ output: String) -> [SlurmJobStatus] {
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4 else { return nil }
            let id = fields[0].trimmingCharacters(in: .whitespaces)
            let state = fields[1].trimmingCharacters(in: .whitespaces)
            guard !id.isEmpty, !state.isEmpty,
                let status = Int32(fields[2].trimmingCharacters(in: .whitespaces))
            else { return nil }
            // squeue shows "CANCELLED by 0" in some versions.
            let base = state.split(separator: " ").first.map(String.init) ?? state
            return SlurmJobStatus(
                id: id, state: base, waitStatus: status,
                reason: fields[3].trimmingCharacters(in: .whitespaces))
        }
    }

    /// The `sacct --parsable2` output format ``parseAccounting(_:)`` reads.
    static let accountingFormat = "JobID,State,ExitCode"

    /// The statuses in `sacct`'s output (`123_4|COMPLETED|0:0`, an exit code as
    /// `status:signal`); lines it cannot read are left out.
    static func parseAccounting(_ output: String) -> [SlurmJobStatus] {
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "|", omittingEmptySubsequences: false)
            guard fields.count >= 3 else { return nil }
            let codes = fields[2].split(separator: ":")
            guard codes.count == 2, let code = Int32(codes[0]), let signal = Int32(codes[1]),
                !fields[0].isEmpty
            else { return nil }
            let state = fields[1].split(separator: " ").first.map(String.init) ?? ""
            guard !state.isEmpty else { return nil }
            return SlurmJobStatus(
                id: String(fields[0]), state: state,
                waitStatus: signal != 0 ? signal & 0x7F : (code & 0xFF) << 8, reason: "sacct")
        }
    }

    /// How the job's command ended, as a step sees it; `cancelledByProcflow` tells a cancel
    /// procflow asked for (the step was cancelled) from one by someone else.
    func termination(cancelledByProcflow: Bool) -> CommandOutcome.Termination {
        let job = "Slurm job \(id)"
        switch state {
        case "COMPLETED":
            return ProcessWatch.termination(fromWaitStatus: waitStatus)
        case "FAILED":
            if waitStatus == 0 {
                return .ended("\(job) failed before its command ran (\(reason))")
            }
            return ProcessWatch.termination(fromWaitStatus: waitStatus)
        case "CANCELLED":
            if cancelledByProcflow {
                let signal = waitStatus & 0x7F
                return .signaled(signal != 0 && signal != 0x7F ? signal : SIGTERM)
            }
            return .ended("\(job) was cancelled outside procflow (scancel, or an administrator)")
        case "TIMEOUT":
            return .ended("\(job) ran past its time limit (TIMEOUT)")
        case "OUT_OF_MEMORY":
            return .ended(
                "\(job) ran out of memory (OUT_OF_MEMORY): ask for more with resources.memory")
        case "NODE_FAIL":
            return .ended("the node running \(job) failed (NODE_FAIL)")
        case "PREEMPTED":
            return .ended("\(job) was preempted by another job (PREEMPTED)")
        case "BOOT_FAIL":
            return .ended("the node for \(job) failed to boot (BOOT_FAIL)")
        case "DEADLINE":
            return .ended("\(job) missed its deadline (DEADLINE)")
        default:
            return .ended("\(job) ended in state \(state) (\(reason))")
        }
    }
}

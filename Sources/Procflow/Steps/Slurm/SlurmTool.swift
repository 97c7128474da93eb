import Dispatch
import Foundation
import ProcedureKit

/// Runs one of Slurm's client programs (`sbatch`, `squeue`, `scancel`) and waits for it.
struct SlurmTool: Sendable {
    /// What a run of a client program gave.
    struct Result {
        var succeeded: Bool
        var stdout: String
        /// Its stderr's last lines, joined: Slurm's message when it refuses.
        var message: String
    }

    /// The environment the programs run in: procflow's, without the variables that would
    /// change what `sbatch` does (`SBATCH_*`) or that belong to a job procflow may itself
    /// run in (`SLURM_*`).
    let environment: [String: String]
    /// Where their processes are registered while they run: not the run's commands.
    private let groups = ProcessGroups()

    init(environment: [String: String]) {
        self.environment = environment.filter { !Self.isSlurmVariable($0.key) }
    }

    /// Whether `name` is one of the variables Slurm sets or reads: they never pass from
    /// procflow's environment to a job's.
    static func isSlurmVariable(_ name: String) -> Bool {
        name.hasPrefix("SLURM_") || name.hasPrefix("SBATCH_") || name.hasPrefix("SALLOC_")
            || name.hasPrefix("SRUN_")
    }

    /// Runs `arguments` (the program first) and waits for it; at most `timeout` seconds.
    func run(_ arguments: [String], timeout: TimeInterval = 120) -> Result {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<CommandOutcome?>(nil)
        let launch = CommandLaunch(
            executable: arguments[0], arguments: arguments, environment: environment,
            workingDirectory: nil, stdin: nil, captureStdout: true, captureLimit: 16 << 20,
            gracePeriod: 2, pipeGracePeriod: 0.2, groups: groups, onOutput: nil)
        let run: ProcessRun
        do {
            run = try ProcessRun.start(launch) { ended in
                outcome.withLock { $0 = ended }
                done.signal()
            }
        } catch {
            return Result(succeeded: false, stdout: "", message: error.message)
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            run.terminate(signal: SIGTERM, gracePeriod: 2)
            done.wait()
            return Result(
                succeeded: false, stdout: "",
                message: "\(arguments[0]) did not answer within \(Int(timeout)) s")
        }
        let ended = outcome.withLock { $0 }!
        let message = ended.stderrTail.filter { !$0.isEmpty }.suffix(3).joined(separator: " ")
        return Result(
            succeeded: ended.termination == .exited(0),
            stdout: String(decoding: ended.captured, as: UTF8.self),
            message: message.isEmpty ? Self.describe(ended.termination, arguments[0]) : message)
    }

    private static func describe(_ termination: CommandOutcome.Termination, _ program: String)
        -> String
    {
        switch termination {
        case .exited(let code): "\(program) exited with status \(code)"
        case .signaled(let signal): "\(program) was killed by \(SignalName.describe(signal))"
        case .unknown(let reason), .notStarted(let reason), .ended(let reason):
            "\(program): \(reason)"
        }
    }
}

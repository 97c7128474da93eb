import Foundation
import ProcedureKit

/// The commands of one step's condition, run one at a time: each bounded by the condition's
/// deadline, and torn down when the step is cancelled.
final class ConditionCommand: Sendable {
    private struct State {
        var running: ProcessRun?
        /// The signal the step was cancelled with: no command starts after it.
        var cancelled: Int32?
    }

    private let settings: WorkflowCondition.Settings
    private let state = Locked(State())

    init(settings: WorkflowCondition.Settings) {
        self.settings = settings
    }

    /// Runs `script` with `/bin/sh -e -c`; completes with whether it exited 0, or a failure if it
    /// could not run, timed out, or ended in a way that says nothing.
    func run(
        _ script: String, deadline: Date?,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        let left = deadline.map { $0.timeIntervalSinceNow }
        if let left, left <= 0 { return completion(.failure(timedOut())) }
        if state.withLock({ $0.cancelled != nil }) { return completion(.success(false)) }
        let launch = CommandLaunch.quietScript(
            script, environment: settings.environment, directory: settings.directory,
            gracePeriod: settings.gracePeriod, groups: settings.processGroups)
        let timedOut = Locked(false)
        let run: ProcessRun
        do {
            run = try ProcessRun.start(launch) { [self] outcome in
                state.withLock { $0.running = nil }
                completion(result(of: outcome, timedOut: timedOut.withLock { $0 }))
            }
        } catch {
            return completion(.failure(error))
        }
        let cancelled = state.withLock { state -> Int32? in
            state.running = run
            return state.cancelled
        }
        if let cancelled { run.terminate(signal: cancelled, gracePeriod: settings.gracePeriod) }
        if let left {
            DispatchQueue.global().asyncAfter(deadline: .now() + left) { [settings] in
                timedOut.withLock { $0 = true }
                run.terminate(signal: SIGTERM, gracePeriod: settings.gracePeriod)
            }
        }
    }

    /// Tears the running command down with `signal`, then SIGKILL after the grace period.
    func cancel(signal: Int32) {
        let run = state.withLock { state -> ProcessRun? in
            if state.cancelled == nil { state.cancelled = signal }
            return state.running
        }
        run?.terminate(signal: signal, gracePeriod: settings.gracePeriod)
    }

    private func result(of outcome: CommandOutcome, timedOut: Bool) -> ConditionResult {
        if timedOut { return .failure(self.timedOut()) }
        switch outcome.termination {
        case .exited(let code): return .success(code == 0)
        case .signaled: return .success(false)
        case .unknown(let reason), .notStarted(let reason), .ended(let reason):
            return .failure(
                StepError(
                    .exitStatusUnknown, "its command's exit status could not be read: \(reason)"))
        }
    }

    private func timedOut() -> StepError {
        StepError(
            .timedOut,
            "its command timed out after \(formatDuration(settings.timeout ?? 0))")
    }
}

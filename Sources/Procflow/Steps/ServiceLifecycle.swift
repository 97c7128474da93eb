import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What a shell procedure that runs a service needs besides its command.
struct ServiceOptions: Sendable {
    /// How it tells it is ready, and how long that may take.
    var service: Service
    /// Called once the service is ready, just before its procedure finishes.
    var onReady: @Sendable (ShellProcedure) -> Void
    /// Called when the service exits after it was ready.
    var onExit: @Sendable (CommandOutcome) -> Void
}

/// The life of one service's process as its ``ShellProcedure`` sees it: starting, then ready
/// (the procedure succeeds, the process keeps running) or failing (not ready in time: the
/// process is stopped, and the procedure fails once it has exited).
///
/// Its events come from three threads in any order: the one that started the process
/// (``started(_:by:)``), the one that watches it (its lines, which a `log` readiness looks at,
/// then ``ended(_:as:)``), and a probe's. A service can be ready before ``started(_:by:)`` is
/// called (its first line came first), and can exit while it is being reported ready: either
/// way, ``ServiceOptions/onReady`` is called before ``ServiceOptions/onExit``, and the
/// procedure finishes once.
final class ServiceLifecycle: Sendable {
    private enum Phase {
        case starting
        /// Ready, and being reported so; the process's end, if it came meanwhile, waits.
        case becomingReady(exit: CommandOutcome?)
        case ready
        case failing(StepError)
    }

    private struct State {
        var phase = Phase.starting
        var procedure: ShellProcedure?
        var run: (any RunningCommand)?
        /// The process is over.
        var ended = false
    }

    private let options: ServiceOptions
    private let gracePeriod: TimeInterval
    private let state = Locked(State())
    /// Set once, in init: the wait calls back into this object, so it is made after it.
    private let readiness = Locked<ServiceReadiness?>(nil)

    init(_ options: ServiceOptions, command: ServiceReadiness.CommandSettings) {
        self.options = options
        gracePeriod = command.gracePeriod
        let readiness = ServiceReadiness(
            options.service.ready, timeout: options.service.timeout, command: command
        ) { [weak self] event in self?.readinessEnded(event) }
        self.readiness.withLock { $0 = readiness }
    }

    /// `onOutput`, looking at each line for a `log` readiness first.
    func watching(
        _ onOutput: (@Sendable (ShellProcedure.Stream, [Substring]) -> Void)?
    ) -> @Sendable (ShellProcedure.Stream, [Substring]) -> Void {
        let readiness = readiness.withLock { $0 }
        return { stream, lines in
            onOutput?(stream, lines)
            readiness?.observe(lines)
        }
    }

    /// The service's process has started: wait for it to be ready, or report that it was.
    func started(_ run: any RunningCommand, by procedure: ShellProcedure) {
        let next = state.withLock { state -> StartedNext in
            // Ready before its procedure was known (and perhaps over since): reported here.
            if case .becomingReady = state.phase { return .reportReady }
            // Over before this was called: its procedure has its result.
            guard !state.ended else { return .nothing }
            state.procedure = procedure
            state.run = run
            return .wait
        }
        switch next {
        case .wait: readiness.withLock { $0 }?.start()
        case .reportReady: reportReady(procedure)
        case .nothing: break
        }
    }

    private enum StartedNext {
        case wait
        case reportReady
        case nothing
    }

    /// The procedure was cancelled before the service was ready: stop waiting.
    func cancelled() {
        readiness.withLock { $0 }?.stop()
    }

    /// The service's process is over: what its procedure finishes with, or `nil` when it was
    /// ready (its procedure has finished; ``ServiceOptions/onExit`` is told instead).
    func ended(_ outcome: CommandOutcome, as result: ProcedureResult<JSONValue>)
        -> ProcedureResult<JSONValue>?
    {
        readiness.withLock { $0 }?.stop()
        let phase = state.withLock { state -> Phase in
            state.procedure = nil
            state.run = nil
            state.ended = true
            if case .becomingReady = state.phase { state.phase = .becomingReady(exit: outcome) }
            return state.phase
        }
        switch phase {
        case .becomingReady:
            // Told once the service has been reported ready.
            return nil
        case .ready:
            options.onExit(outcome)
            return nil
        case .failing(let error):
            return .failure(StepError(error.code, error.message, stderrTail: outcome.stderrTail))
        case .starting:
            guard case .failure(let error as StepError) = result else {
                return .failure(
                    StepError(
                        .notReady, "exited with status 0 before it was ready",
                        stderrTail: outcome.stderrTail))
            }
            return .failure(
                StepError(
                    error.code, "\(error.message) before it was ready",
                    stderrTail: error.stderrTail))
        }
    }

    private func readinessEnded(_ event: ServiceReadiness.Event) {
        switch event {
        case .ready:
            let procedure = state.withLock { state -> ShellProcedure? in
                guard case .starting = state.phase else { return nil }
                state.phase = .becomingReady(exit: nil)
                // Not started yet: ``started(_:by:)`` reports it.
                return state.procedure
            }
            if let procedure { reportReady(procedure) }
        case .timedOut:
            let error = StepError(
                .notReady, "not ready after \(formatDuration(options.service.timeout))")
            let run = state.withLock { state -> (any RunningCommand)? in
                guard case .starting = state.phase else { return nil }
                state.phase = .failing(error)
                return state.run
            }
            run?.terminate(signal: SIGTERM, gracePeriod: gracePeriod)
        }
    }

    /// Tells the run the service is ready and finishes its procedure; then tells it of the
    /// process's end if that came meanwhile.
    private func reportReady(_ procedure: ShellProcedure) {
        options.onReady(procedure)
        procedure.finish(withResult: .success(.null))
        let exit = state.withLock { state -> CommandOutcome? in
            guard case .becomingReady(let exit) = state.phase else { return nil }
            state.phase = .ready
            return exit
        }
        if let exit { options.onExit(exit) }
    }
}

import Foundation
import ProcedureKit
import Testing

@testable import Procflow

/// An executor that plays a service's process: at its start, the lines given (as a watcher that
/// ran ahead of the thread that started it would); its end when the test says.
private final class ScriptedExecutor: CommandExecutor {
    private let firstLines: [Substring]
    private let completion = Locked<(@Sendable (CommandOutcome) -> Void)?>(nil)

    init(firstLines: [Substring]) { self.firstLines = firstLines }

    var name: String { "scripted" }
    var spawnsLocally: Bool { false }

    func start(
        _ launch: CommandLaunch, completion: @escaping @Sendable (CommandOutcome) -> Void
    ) throws(StepError) -> any RunningCommand {
        self.completion.withLock { $0 = completion }
        if !firstLines.isEmpty { launch.onOutput?(.stdout, firstLines) }
        return ScriptedRun()
    }

    /// The process exits with `status`.
    func exit(_ status: Int32) {
        let outcome = CommandOutcome(
            termination: .exited(status), captured: [], captureExceeded: false, stderrTail: [])
        completion.withLock { $0 }?(outcome)
    }
}

private final class ScriptedRun: RunningCommand {
    func terminate(signal: Int32, gracePeriod: TimeInterval) {}
    var processGroup: pid_t? { nil }
}

/// A service procedure on `executor`, ready when `ready` says; `events` records what the run
/// is told, `onReady` runs as the run is told it is ready.
private func service(
    on executor: ScriptedExecutor, ready: Service.Readiness, events: Locked<[String]>,
    onReady: @escaping @Sendable () -> Void = {}
) -> ShellProcedure {
    var options = ShellProcedure.Options()
    options.executor = executor
    options.service = ServiceOptions(
        service: Service(ready: ready, timeout: 30),
        onReady: { _ in
            onReady()
            events.withLock { $0.append("ready") }
        },
        onExit: { outcome in events.withLock { $0.append("exited \(outcome.termination)") } })
    return ShellProcedure(.argv(["db"]), options: options)
}

/// A service's events come from several threads in any order (its start, its watcher, a
/// probe): each order ends the same way.
@Suite("Service lifecycle: events in any order")
struct ServiceLifecycleTests {

    /// The watcher read the service's "ready" line before the thread that started it said it
    /// had started (the watcher runs on a thread of its own): the service is still ready, and
    /// its procedure finishes.
    @Test func aServiceReadyBeforeItsStartIsReportedIsReady() {
        let executor = ScriptedExecutor(firstLines: ["up"])
        let events = Locked<[String]>([])
        let procedure = run(
            service(on: executor, ready: .log("^up$"), events: events), timeout: 10)
        #expect(procedure.isFinished)
        #expect(procedure.error == nil)
        #expect(events.withLock { $0 } == ["ready"])
        executor.exit(1)
        #expect(events.withLock { $0 } == ["ready", "exited exited(1)"])
    }

    /// The service exits while it is being reported ready (its watcher saw it end as a probe
    /// found it ready): the run hears of its end after it heard it was ready, once; what a
    /// service's exit does (fail its dependents) comes after what its readiness did.
    @Test func anExitWhileBeingReportedReadyIsToldAfterIt() {
        let executor = ScriptedExecutor(firstLines: [])
        let events = Locked<[String]>([])
        let procedure = run(
            service(on: executor, ready: .started, events: events) { executor.exit(3) },
            timeout: 10)
        #expect(procedure.isFinished)
        #expect(procedure.error == nil)
        #expect(events.withLock { $0 } == ["ready", "exited exited(3)"])
    }
}

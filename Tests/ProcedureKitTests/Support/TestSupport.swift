import Dispatch
import Foundation
import Synchronization
import Testing

@testable import ProcedureKit

/// An error to finish or cancel procedures with.
struct TestError: Error, Equatable {
    var tag = "test"
}

/// A thread-safe list that tests append to from any thread.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])

    func append(_ element: Element) {
        items.withLock { $0.append(element) }
    }

    var all: [Element] {
        items.withLock { $0 }
    }

    var count: Int {
        items.withLock { $0.count }
    }
}

/// A procedure that records its calls and finishes at once (or with `error`).
final class TestProcedure: Procedure, @unchecked Sendable {
    let executions = Atomic<Int>(0)
    let events: Recorder<String>?
    private let finishError: TestError?

    init(name: String? = nil, error: TestError? = nil, events: Recorder<String>? = nil) {
        self.finishError = error
        self.events = events
        super.init()
        if let name { self.name = name }
    }

    var didExecute: Bool { executions.load(ordering: .relaxed) > 0 }

    override func execute() {
        executions.add(1, ordering: .relaxed)
        events?.append("execute \(name ?? "")")
        finish(with: finishError)
    }
}

/// A procedure that starts, then waits until the test calls `release()` to finish.
final class HeldProcedure: Procedure, @unchecked Sendable {
    let started = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)

    override func execute() {
        started.signal()
        onThreadOfItsOwn { [self] in
            gate.wait()
            finish()
        }
    }

    func release() {
        gate.signal()
    }
}

/// Runs `body`, which blocks (waits for a gate), on a thread of its own. Not on one of
/// Dispatch's: on Linux it keeps about one thread a core and adds none when they block, and
/// Swift's tasks run on those threads too, so on two cores a few blocked waits held every test
/// of the process, and every procedure callback sent to Dispatch, until they timed out.
func onThreadOfItsOwn(_ body: @escaping @Sendable () -> Void) {
    Thread { body() }.start()
}

/// Waits until `procedure` has finished and its did-finish observers have run (`isFinished`
/// turns true before they run; Foundation's `waitUntilFinished()` returns after them), failing
/// the test after `timeout` seconds.
func waitForFinish(
    _ procedures: Procedure..., timeout: TimeInterval = 10,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for procedure in procedures {
        let done = DispatchSemaphore(value: 0)
        // A thread of its own: a blocked Dispatch worker would be one fewer for the procedures.
        Thread {
            procedure.waitUntilFinished()
            done.signal()
        }.start()
        #expect(
            done.wait(timeout: .now() + timeout) == .success,
            "\(procedure.name ?? "") did not finish", sourceLocation: sourceLocation)
    }
}

/// Waits until `queue` has no unfinished operation, failing the test after `timeout` seconds.
func waitUntilIdle(
    _ queue: ProcedureQueue, timeout: TimeInterval = 30,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let done = DispatchSemaphore(value: 0)
    Thread {
        queue.waitUntilAllOperationsAreFinished()
        done.signal()
    }.start()
    #expect(
        done.wait(timeout: .now() + timeout) == .success, "queue did not drain",
        sourceLocation: sourceLocation)
}

/// Polls `condition` until it holds or `timeout` seconds pass.
func eventually(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}

/// A unique name, so tests running in parallel never share a mutual-exclusion category.
func uniqueCategory(_ function: String = #function) -> String {
    "\(function)-\(UUID().uuidString)"
}

/// Polls `condition` until it holds or `timeout` seconds pass, without blocking a thread of
/// the cooperative pool (async tests that block it can starve the tasks they wait for).
func eventually(timeout: TimeInterval = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    return condition()
}

/// Waits as ``waitForFinish(_:timeout:sourceLocation:)`` does, without blocking a thread of the
/// cooperative pool: the threads that wait are threads of their own.
func waitForFinish(
    _ procedures: Procedure..., timeout: TimeInterval = 10,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    for procedure in procedures {
        let finished = await returns(within: timeout) { procedure.waitUntilFinished() }
        #expect(finished, "\(procedure.name ?? "") did not finish", sourceLocation: sourceLocation)
    }
}

/// Waits as ``waitUntilIdle(_:timeout:sourceLocation:)`` does, without blocking a thread of the
/// cooperative pool.
func waitUntilIdle(
    _ queue: ProcedureQueue, timeout: TimeInterval = 30,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    let idle = await returns(within: timeout) { queue.waitUntilAllOperationsAreFinished() }
    #expect(idle, "queue did not drain", sourceLocation: sourceLocation)
}

/// Runs `wait`, which blocks, on a thread of its own; true if it returned within `timeout`
/// seconds.
private func returns(
    within timeout: TimeInterval, _ wait: @escaping @Sendable () -> Void
) async -> Bool {
    await withCheckedContinuation { continuation in
        Thread {
            let done = DispatchSemaphore(value: 0)
            Thread {
                wait()
                done.signal()
            }.start()
            continuation.resume(returning: done.wait(timeout: .now() + timeout) == .success)
        }.start()
    }
}

/// A procedure that runs until it is cancelled, then finishes.
final class RunsUntilCancelled: Procedure, @unchecked Sendable {
    // @unchecked Sendable: it adds one constant, a semaphore, to Procedure.
    let started = DispatchSemaphore(value: 0)

    override func execute() {
        started.signal()
    }

    override func procedureDidCancel(with error: (any Error)?) {
        if isExecuting { finish() }
    }
}

/// A condition that answers `result` on another thread once `gate` is signalled.
final class LaterCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: the stored properties are constants.
    private let gate: DispatchSemaphore
    private let result: ConditionResult

    init(after gate: DispatchSemaphore, _ result: ConditionResult) {
        self.gate = gate
        self.result = result
        super.init()
    }

    override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        onThreadOfItsOwn { [gate, result] in
            gate.wait()
            gate.signal()
            completion(result)
        }
    }
}

/// Runs a new procedure with `conditions` attached and waits for it.
func runProcedure(conditions: Condition...) -> TestProcedure {
    let procedure = TestProcedure()
    for condition in conditions { procedure.addCondition(condition) }
    ProcedureQueue().addOperation(procedure)
    waitForFinish(procedure)
    return procedure
}

/// Records what a queue tells its delegate.
final class RecordingDelegate: ProcedureQueueDelegate {
    let events = Recorder<String>()

    func procedureQueue(_ queue: ProcedureQueue, willAddOperation operation: Operation) {
        events.append("will add \(operation.name ?? "")")
    }

    func procedureQueue(_ queue: ProcedureQueue, didAddOperation operation: Operation) {
        events.append("did add \(operation.name ?? "")")
    }

    func procedureQueue(
        _ queue: ProcedureQueue, willFinishProcedure procedure: Procedure, with error: (any Error)?
    ) {
        events.append("will finish \(procedure.name ?? "") \((error as? TestError)?.tag ?? "ok")")
    }

    func procedureQueue(
        _ queue: ProcedureQueue, didFinishOperation operation: Operation, with error: (any Error)?
    ) {
        events.append("did finish \(operation.name ?? "") \((error as? TestError)?.tag ?? "ok")")
    }
}

/// A dispatch queue that can tell whether the current code runs on it.
final class RecognisableQueue: Sendable {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Bool>()

    init(_ label: String, attributes: DispatchQueue.Attributes = []) {
        queue = DispatchQueue(label: label, attributes: attributes)
        queue.setSpecific(key: key, value: true)
    }

    /// Whether the caller runs on the queue.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == true
    }
}

/// Counts the callbacks it hears that began while another of them was still running: one
/// procedure's callbacks must never overlap.
final class OverlapDetector: ProcedureObserver, Sendable {
    private let running = Atomic<Int>(0)
    private let overlapCount = Atomic<Int>(0)

    /// How many callbacks began while another was running.
    var overlaps: Int { overlapCount.load(ordering: .relaxed) }

    /// Runs `body` as one callback, yielding inside it so that an overlap has room to show.
    func callback(_ body: () -> Void = {}) {
        if running.add(1, ordering: .acquiringAndReleasing).newValue > 1 {
            overlapCount.add(1, ordering: .relaxed)
        }
        body()
        sched_yield()
        running.subtract(1, ordering: .acquiringAndReleasing)
    }

    func will(execute procedure: Procedure) { callback() }
    func did(execute procedure: Procedure) { callback() }
    func did(cancel procedure: Procedure, with error: (any Error)?) { callback() }
    func procedure(_ procedure: Procedure, willAdd newOperation: Operation) { callback() }
    func procedure(_ procedure: Procedure, didAdd newOperation: Operation) { callback() }
    func will(finish procedure: Procedure, with error: (any Error)?) { callback() }
    func did(finish procedure: Procedure, with error: (any Error)?) { callback() }
}

/// Runs `work` with `procedure`'s pending execute on another thread, once every will-execute
/// observer has returned: long after the announcement, the token still holds the execute.
func afterExecuteIsAnnounced(
    _ procedure: Procedure, _ work: @escaping @Sendable (PendingEvent) -> Void
) {
    let announced = DispatchSemaphore(value: 0)
    procedure.addWillExecuteBlockObserver { _, pendingExecute in
        onThreadOfItsOwn {
            announced.wait()
            work(pendingExecute)
        }
    }
    procedure.addWillExecuteBlockObserver { _ in announced.signal() }
}

/// Runs `work` with `procedure`'s pending finish on another thread, once every will-finish
/// observer has returned.
func afterFinishIsAnnounced(
    _ procedure: Procedure, _ work: @escaping @Sendable (PendingEvent) -> Void
) {
    let announced = DispatchSemaphore(value: 0)
    procedure.addWillFinishBlockObserver { _, _, pendingFinish in
        onThreadOfItsOwn {
            announced.wait()
            work(pendingFinish)
        }
    }
    procedure.addWillFinishBlockObserver { _, _ in announced.signal() }
}

/// What a procedure had done when an operation was about to be added before one of its events.
struct SeenAtWillAdd: Equatable {
    var executed = false
    var finished = false
}

/// Records what `procedure` had done when `adder` is about to add `operation`.
func seenAtWillAdd(
    of operation: Operation, by adder: Procedure, about procedure: TestProcedure
) -> Locked<SeenAtWillAdd?> {
    let seen = Locked<SeenAtWillAdd?>(nil)
    adder.addObserver(
        BlockObserver(willAdd: { _, added in
            guard added === operation else { return }
            seen.withLock {
                $0 = SeenAtWillAdd(executed: procedure.didExecute, finished: procedure.isFinished)
            }
        }))
    return seen
}

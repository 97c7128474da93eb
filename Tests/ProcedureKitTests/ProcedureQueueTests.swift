import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// A Foundation asynchronous operation written the corelibs way: it overrides the state
/// properties and reports changes with didChangeValue(forKey:).
final class AsyncOperation: Operation, @unchecked Sendable {
    private let state = Locked((executing: false, finished: false))
    let events: Recorder<String>
    let label: String

    init(label: String, events: Recorder<String>) {
        self.label = label
        self.events = events
        super.init()
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { state.withLock { $0.executing } }
    override var isFinished: Bool { state.withLock { $0.finished } }

    override func start() {
        state.withLock { $0.executing = true }
        didChangeValue(forKey: "isExecuting")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { [self] in
            events.append("async \(label)")
            state.withLock { $0 = (false, true) }
            didChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isFinished")
        }
    }
}

/// Counts how many of its procedures execute at once, and the most it saw.
final class ConcurrencyProbe: Sendable {
    private let counts = Locked((current: 0, peak: 0))

    var peak: Int { counts.withLock { $0.peak } }

    /// A procedure that, once executing, stays until `target` procedures have been seen
    /// executing at once (or 5 s pass), then a little longer, so a queue that allows `target`
    /// reaches it and one that allows more exceeds it.
    func procedure(stayingUntilPeak target: Int) -> Procedure {
        BlockProcedure { [self] in
            counts.withLock {
                $0.current += 1
                $0.peak = max($0.peak, $0.current)
            }
            _ = eventually(timeout: 5) { peak >= target }
            usleep(5000)
            counts.withLock { $0.current -= 1 }
        }
    }
}

@Suite("ProcedureQueue")
struct ProcedureQueueTests {

    @Test(arguments: [1, 2, 3, 8])
    func executesUpToTheMaximumAtOnceAndNoMore(limit: Int) {
        // The procedures block their threads, so this also shows that a blocking execute()
        // does not hold back the others the limit allows.
        let queue = ProcedureQueue(maxConcurrentOperationCount: limit)
        let probe = ConcurrencyProbe()
        queue.addOperations((0..<(limit * 4)).map { _ in probe.procedure(stayingUntilPeak: limit) })
        waitUntilIdle(queue, timeout: 120)
        #expect(probe.peak == limit)
    }

    @Test func aSuspendedQueueStartsNothingUntilResumed() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let procedure = TestProcedure()
        queue.addOperation(procedure)
        usleep(20_000)
        #expect(!procedure.didExecute)
        #expect(queue.operationCount == 1)
        queue.isSuspended = false
        waitUntilIdle(queue)
        #expect(procedure.didExecute)
        #expect(queue.operationCount == 0)
    }

    @Test func aCancelledProcedureFinishesInASuspendedQueue() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let procedure = TestProcedure()
        queue.addOperation(procedure)
        procedure.cancel()
        waitForFinish(procedure)
        #expect(!procedure.didExecute)
    }

    @Test func raisingTheLimitStartsWaitingProcedures() {
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        let first = HeldProcedure()
        let second = HeldProcedure()
        queue.addOperations(first, second)
        first.started.wait()
        #expect(second.started.wait(timeout: .now() + 0.05) == .timedOut)
        queue.maxConcurrentOperationCount = 2
        #expect(second.started.wait(timeout: .now() + 5) == .success)
        first.release()
        second.release()
        waitUntilIdle(queue)
    }

    @Test func waitUntilAllOperationsAreFinishedCountsProducedOperations() {
        final class Producer: Procedure, @unchecked Sendable {
            let produced = DelayProcedure(by: 0.05)
            override func execute() {
                try? produce(operation: produced)
                finish()
            }
        }
        let queue = ProcedureQueue()
        let producer = Producer()
        queue.addOperation(producer)
        queue.waitUntilAllOperationsAreFinished()
        #expect(producer.produced.isFinished)
    }

    @Test func allTheSpellingsOfAddingWork() {
        let queue = ProcedureQueue()
        let procedures = (0..<7).map { TestProcedure(name: "\($0)") }
        queue.addOperation(procedures[0])
        queue.addOperations([procedures[1]])
        queue.addOperations(procedures[2], procedures[3])
        queue.add(operation: procedures[4])
        queue.add(operations: [procedures[5]])
        queue.add(operations: procedures[6])
        let block = Recorder<String>()
        queue.addOperation { block.append("block") }
        queue.addOperations([TestProcedure()], waitUntilFinished: true)
        waitUntilIdle(queue)
        #expect(procedures.allSatisfy { $0.didExecute })
        #expect(block.all == ["block"])
    }

    @Test func plainBlockOperationsRunWithDependenciesBothWays() {
        let events = Recorder<String>()
        let first = BlockOperation { events.append("block first") }
        let middle = TestProcedure(name: "middle", events: events)
        let last = BlockOperation { events.append("block last") }
        middle.addDependency(first)
        last.addDependency(middle)
        let queue = ProcedureQueue()
        queue.addOperations(last, middle, first)
        waitUntilIdle(queue)
        #expect(events.all == ["block first", "execute middle", "block last"])
        #expect(first.isFinished && last.isFinished)
    }

    @Test func asynchronousOperationSubclassesRunWithDependenciesBothWays() {
        let events = Recorder<String>()
        let first = AsyncOperation(label: "first", events: events)
        let middle = TestProcedure(name: "middle", events: events)
        let last = AsyncOperation(label: "last", events: events)
        let end = BlockOperation { events.append("block end") }
        middle.addDependency(first)
        last.addDependency(middle)
        end.addDependency(last)
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        queue.addOperations(end, last, middle, first)
        waitUntilIdle(queue)
        #expect(events.all == ["async first", "execute middle", "async last", "block end"])
    }

    @Test func plainOperationsDependOnEachOtherInAChain() {
        let events = Recorder<Int>()
        let operations = (0..<200).map { index in BlockOperation { events.append(index) } }
        for (earlier, later) in zip(operations, operations.dropFirst()) {
            later.addDependency(earlier)
        }
        let queue = ProcedureQueue(maxConcurrentOperationCount: 2)
        queue.addOperations(operations.reversed())
        waitUntilIdle(queue)
        #expect(events.all == Array(0..<200))
    }

    @Test func dependenciesAcrossQueues() {
        let events = Recorder<String>()
        let first = TestProcedure(name: "first", events: events)
        let second = TestProcedure(name: "second", events: events)
        second.addDependency(first)
        let one = ProcedureQueue()
        let other = ProcedureQueue()
        other.addOperation(second)
        usleep(10_000)
        one.addOperation(first)
        waitUntilIdle(other)
        #expect(events.all == ["execute first", "execute second"])
    }

    @Test func aDependencyThatFinishedBeforeItWasAddedDoesNotBlock() {
        let queue = ProcedureQueue()
        let first = TestProcedure()
        queue.addOperation(first)
        waitForFinish(first)
        let second = TestProcedure()
        second.addDependency(first)
        queue.addOperation(second)
        waitForFinish(second)
        #expect(second.didExecute)
    }

    @Test func readyProceduresStartInTheOrderTheyBecameReady() {
        let events = Recorder<String>()
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        queue.addOperations((0..<50).map { TestProcedure(name: "\($0)", events: events) })
        waitUntilIdle(queue)
        #expect(events.all == (0..<50).map { "execute \($0)" })
    }

    @Test func longChainsRunAndAreReleasedWithoutRecursion() {
        // Deep enough to overflow the stack if running or releasing recursed per link.
        weak var weakFirst: Procedure?
        do {
            let queue = ProcedureQueue(maxConcurrentOperationCount: 2)
            var chain: [Procedure] = (0..<200_000).map { _ in BlockProcedure {} }
            for index in 1..<chain.count { chain[index].addDependency(chain[index - 1]) }
            weakFirst = chain[0]
            queue.addOperations(chain)
            // A loose bound: under ThreadSanitizer, on a busy machine, 200,000 links take
            // minutes (the wait ends as soon as the queue is idle).
            waitUntilIdle(queue, timeout: 300)
            let last = chain[chain.count - 1]
            chain = []
            #expect(last.isFinished)
        }
        // The worker that ran the last link may still hold it for a moment after the queue is
        // idle; the chain is then released on that thread, when it lets go.
        #expect(eventually { weakFirst == nil })
    }

    @Test func anUnrunChainIsReleasedWithoutRecursion() {
        weak var weakFirst: Procedure?
        do {
            var previous: Procedure = BlockProcedure {}
            weakFirst = previous
            for _ in 0..<200_000 {
                let next = BlockProcedure {}
                next.addDependency(previous)
                previous = next
            }
        }
        #expect(weakFirst == nil)
    }
}

/// Adding a dependency once a procedure is in a queue (issue 26, item 12): the original
/// ProcedureKit allows it while the procedure still waits for another dependency, and waits for
/// the new one too; this library trapped.
@Suite("Dependencies added after enqueueing")
struct LateDependencyTests {
    @Test func aDependencyAddedWhileWaitingIsWaitedFor() {
        let queue = ProcedureQueue()
        let first = HeldProcedure()
        let late = HeldProcedure()
        let waiter = HeldProcedure()
        waiter.addDependency(first)
        queue.addOperation(first)
        queue.addOperation(waiter)
        #expect(first.started.wait(timeout: .now() + 10) == .success)
        // Still waiting for `first`: a new dependency joins the wait.
        waiter.addDependency(late)
        queue.addOperation(late)
        #expect(late.started.wait(timeout: .now() + 10) == .success)
        first.release()
        waitForFinish(first)
        #expect(waiter.started.wait(timeout: .now() + 0.3) == .timedOut)
        late.release()
        #expect(waiter.started.wait(timeout: .now() + 10) == .success)
        waiter.release()
        waitForFinish(waiter)
        #expect(waiter.dependencies.count == 2)
    }

    @Test func aDependencyAddedTooLateIsKeptNotWaitedFor() {
        let queue = ProcedureQueue()
        let procedure = HeldProcedure()
        queue.addOperation(procedure)
        #expect(procedure.started.wait(timeout: .now() + 10) == .success)
        // Executing: nothing to wait any more, and no trap.
        let other = BlockProcedure {}
        procedure.addDependency(other)
        procedure.release()
        waitForFinish(procedure)
        procedure.addDependency(BlockProcedure {})
        #expect(procedure.dependencies.count == 2)
    }
}

import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A held execute or finish: what waits for it, what runs before it, and how it ends.
@Suite("PendingEvent")
struct PendingEventTests {

    /// Keeps tokens for a procedure's execute or finish until the test lets them go: the one
    /// its observer is given, and more read from `pendingEvent`; `announced` is signalled once
    /// they are all kept.
    final class TokenKeeper: Sendable {
        private let tokens = Locked<[PendingEvent]>([])
        let announced = DispatchSemaphore(value: 0)

        /// Keeps the token given, and `count - 1` more, each a hold of its own.
        private func keep(_ given: PendingEvent, of procedure: Procedure, count: Int) {
            var kept = [given]
            for _ in 1..<count { kept.append(procedure.pendingEvent!) }
            tokens.withLock { $0 = kept }
            announced.signal()
        }

        /// Keeps `count` tokens for `procedure`'s execute.
        static func holdingExecute(of procedure: Procedure, count: Int = 1) -> TokenKeeper {
            let keeper = TokenKeeper()
            procedure.addWillExecuteBlockObserver { procedure, pendingExecute in
                keeper.keep(pendingExecute, of: procedure, count: count)
            }
            return keeper
        }

        /// Keeps `count` tokens for `procedure`'s finish.
        static func holdingFinish(of procedure: Procedure, count: Int = 1) -> TokenKeeper {
            let keeper = TokenKeeper()
            procedure.addWillFinishBlockObserver { procedure, _, pendingFinish in
                keeper.keep(pendingFinish, of: procedure, count: count)
            }
            return keeper
        }

        /// The first token kept.
        var first: PendingEvent { tokens.withLock { $0[0] } }

        /// Lets go of the last token kept.
        func releaseOne() {
            tokens.withLock { _ = $0.removeLast() }
        }

        /// Lets go of every token.
        func releaseAll() {
            tokens.withLock { $0.removeAll() }
        }
    }

    /// Whether `semaphore` stays unsignalled for a while: for what must not happen while an
    /// event is held (it would happen at once without the hold).
    private func staysUnsignalled(_ semaphore: DispatchSemaphore) -> Bool {
        semaphore.wait(timeout: .now() + 0.2) == .timedOut
    }

    @Test func aKeptTokenHoldsTheExecuteUntilItGoes() {
        let procedure = TestProcedure()
        let executed = DispatchSemaphore(value: 0)
        procedure.addDidExecuteBlockObserver { _ in executed.signal() }
        let keeper = TokenKeeper.holdingExecute(of: procedure)
        ProcedureQueue().addOperation(procedure)
        keeper.announced.wait()
        #expect(staysUnsignalled(executed))
        #expect(!procedure.didExecute)
        keeper.releaseAll()
        waitForFinish(procedure)
        #expect(procedure.didExecute)
    }

    @Test func theFinishWaitsForTheLastTokenAndEverythingAfterItWaitsToo() {
        let procedure = TestProcedure()
        let dependent = TestProcedure()
        dependent.addDependency(procedure)
        let group = GroupProcedure(operations: [procedure, dependent])
        let finished = DispatchSemaphore(value: 0)
        procedure.addDidFinishBlockObserver { _, _ in finished.signal() }
        let keeper = TokenKeeper.holdingFinish(of: procedure, count: 2)
        ProcedureQueue().addOperation(group)
        keeper.announced.wait()
        keeper.releaseOne()
        #expect(staysUnsignalled(finished))
        #expect(!procedure.isFinished)
        #expect(!dependent.didExecute)
        #expect(!group.isFinished)
        keeper.releaseAll()
        waitForFinish(group)
        #expect(procedure.isFinished)
        #expect(dependent.didExecute)
    }

    @Test func cancellingDoesNotEndTheHoldAndItsCallbacksWaitBehindIt() {
        let events = Recorder<String>()
        let procedure = TestProcedure(name: "P", events: events)
        procedure.addObserver(RecordingObserver(label: "P", events: events))
        let cancelled = DispatchSemaphore(value: 0)
        procedure.addDidCancelBlockObserver { _, _ in cancelled.signal() }
        let keeper = TokenKeeper.holdingExecute(of: procedure)
        ProcedureQueue().addOperation(procedure)
        keeper.announced.wait()
        procedure.cancel()
        #expect(staysUnsignalled(cancelled))
        keeper.releaseAll()
        waitForFinish(procedure)
        #expect(!procedure.didExecute)
        #expect(procedure.isCancelled)
        #expect(
            events.all == [
                "P attach", "P will execute", "P did cancel", "P will finish", "P did finish",
            ])
    }

    @Test func workBeforeTheHeldEventRunsAheadOfWorkQueuedBehindIt() throws {
        let events = Recorder<String>()
        let procedure = TestProcedure(name: "P", events: events)
        procedure.addObserver(RecordingObserver(label: "P", events: events))
        let keeper = TokenKeeper.holdingExecute(of: procedure)
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        keeper.announced.wait()
        let before = TestProcedure(name: "Before")
        let after = TestProcedure(name: "After")
        try procedure.produce(operation: after)
        try procedure.produce(operation: before, before: keeper.first)
        keeper.releaseAll()
        waitUntilIdle(queue)
        #expect(
            events.all == [
                "P attach", "P will execute", "P will add Before", "P did add Before",
                "execute P", "P did execute", "P will add After", "P did add After",
                "P will finish", "P did finish",
            ])
        #expect(before.didExecute)
        #expect(after.didExecute)
    }

    @Test func aTokenLetGoUnderTheCallersLockResumesTheEventElsewhere() {
        let procedure = TestProcedure()
        let shared = Locked<[PendingEvent]>([])
        procedure.addWillFinishBlockObserver { _, _, pendingFinish in
            shared.withLock { $0.append(pendingFinish) }
        }
        let announced = DispatchSemaphore(value: 0)
        procedure.addWillFinishBlockObserver { _, _ in announced.signal() }
        // Takes the lock the token is let go under: it would wait for ever if did-finish ran
        // as the token went.
        procedure.addDidFinishBlockObserver { _, _ in shared.withLock { _ in } }
        ProcedureQueue().addOperation(procedure)
        announced.wait()
        // Once no thread handles its events, the token's going is what resumes the finish.
        #expect(eventually { procedure.protected.withLock { $0.heldEvent?.isParked == true } })
        Thread { shared.withLock { $0.removeAll() } }.start()
        waitForFinish(procedure)
    }

    @Test func aTokenNobodyKeepsLetsTheEventHappenAtOnceOnTheSameThread() {
        let procedure = TestProcedure()
        let threads = Locked<[pthread_t]>([])
        procedure.addWillExecuteBlockObserver { _, _ in
            threads.withLock { $0.append(pthread_self()) }
        }
        procedure.addDidExecuteBlockObserver { _ in threads.withLock { $0.append(pthread_self()) } }
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        let seen = threads.withLock { $0 }
        #expect(seen.count == 2)
        #expect(seen.count == 2 && pthread_equal(seen[0], seen[1]) != 0)
    }

    @Test func aGroupHoldingItsOwnExecuteTakesChildrenAddedFromAsyncCode() {
        let group = GroupProcedure(operations: [])
        let added = TestProcedure(name: "Added")
        let announced = DispatchSemaphore(value: 0)
        group.addWillExecuteBlockObserver { group, pendingExecute in
            onThreadOfItsOwn {
                announced.wait()
                group.addChild(added, before: pendingExecute)
            }
        }
        group.addWillExecuteBlockObserver { _ in announced.signal() }
        let events = Recorder<String>()
        group.addObserver(RecordingObserver(label: "G", events: events))
        ProcedureQueue().addOperation(group)
        waitForFinish(group)
        #expect(added.didExecute)
        #expect(group.children.count == 1)
        #expect(events.all.contains("G will add Added"))
    }

    @Test func produceBeforeAnotherProceduresFinishHoldsThatFinish() {
        let producer = HeldProcedure()
        let queue = ProcedureQueue()
        queue.addOperation(producer)
        producer.started.wait()
        let produced = TestProcedure(name: "Produced")
        let procedure = TestProcedure()
        afterFinishIsAnnounced(procedure) { pendingFinish in
            try? producer.produce(operation: produced, before: pendingFinish)
        }
        let seen = seenAtWillAdd(of: produced, by: producer, about: procedure)
        queue.addOperation(procedure)
        waitForFinish(procedure)
        #expect(seen.withLock { $0 } == SeenAtWillAdd(executed: true, finished: false))
        producer.release()
        waitUntilIdle(queue)
        #expect(produced.didExecute)
    }

    @Test func aProcedureReadsItsPendingEventOnlyWhileAnnouncingOrHoldingIt() {
        final class Reading: Procedure, @unchecked Sendable {
            let seen = Recorder<String>()
            override func execute() {
                seen.append("execute: \(pendingEvent?.description ?? "none")")
                finish()
            }
            override func procedureWillFinish(with error: (any Error)?) {
                seen.append("will finish: \(pendingEvent?.description ?? "none")")
            }
        }
        let procedure = Reading()
        procedure.name = "R"
        procedure.addWillExecuteBlockObserver { procedure, _ in
            procedure.seen.append("will execute: \(procedure.pendingEvent?.description ?? "none")")
        }
        #expect(procedure.pendingEvent == nil)
        ProcedureQueue().addOperation(procedure)
        waitForFinish(procedure)
        #expect(procedure.pendingEvent == nil)
        #expect(
            procedure.seen.all == [
                "will execute: pending execute of R", "execute: none",
                "will finish: pending finish of R",
            ])
    }
}

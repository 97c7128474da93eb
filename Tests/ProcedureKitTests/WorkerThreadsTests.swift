import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

#if canImport(Glibc)
    import Glibc
#endif

/// The thread a job ran on, comparable across threads.
private func currentThread() -> UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }

@Suite("Worker threads")
struct WorkerThreadsTests {

    @Test func aCapturedJobIsReturnedInsteadOfHandedOn() {
        let ran = Recorder<String>()
        let captured = WorkerThreads.shared.capturingNextJob {
            WorkerThreads.shared.run { ran.append("first") }
        }
        #expect(ran.all.isEmpty)
        captured?()
        #expect(ran.all == ["first"])
    }

    /// What became of work a job keeps for its thread, the job being run by `start`: whether
    /// the work ran (10 s at most), the order of the events, and the threads they ran on.
    private func keptWork(
        startedBy start: (@escaping @Sendable () -> Void) -> Void
    ) -> (ran: Bool, events: [String], threads: Set<UInt>) {
        let events = Recorder<String>()
        let threads = Recorder<UInt>()
        let done = DispatchSemaphore(value: 0)
        start {
            threads.append(currentThread())
            WorkerThreads.shared.allowingDeferral {
                WorkerThreads.shared.runAfterCurrentJob {
                    events.append("deferred")
                    threads.append(currentThread())
                    done.signal()
                }
            }
            usleep(20_000)  // time for another thread to run it, were it handed on
            events.append("job returns")
        }
        let ran = done.wait(timeout: .now() + 10) == .success
        return (ran, events.all, Set(threads.all))
    }

    /// Whether the job `body` is given, on a pool thread, runs while that thread waits for it
    /// (5 s at most): on another thread, not kept for this one.
    private func runsElsewhere(
        _ body: @escaping @Sendable (_ job: @escaping @Sendable () -> Void) -> Void
    ) -> Bool {
        let handedOn = DispatchSemaphore(value: 0)
        let result = Locked<DispatchTimeoutResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        WorkerThreads.shared.run {
            body { handedOn.signal() }
            result.withLock { $0 = handedOn.wait(timeout: .now() + 5) }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 } == .success
    }

    @Test func aDeferredJobRunsOnTheSameThreadOnceTheCurrentJobReturns() {
        let kept = keptWork { WorkerThreads.shared.run($0) }
        #expect(kept.ran)
        #expect(kept.events == ["job returns", "deferred"])
        #expect(kept.threads.count == 1)
    }

    @Test func withoutPermissionAJobIsNotDeferred() {
        // Deferred, it would wait for this job to return: the wait would time out.
        #expect(runsElsewhere { WorkerThreads.shared.runAfterCurrentJob($0) })
    }

    @Test func aReleasedJobRunsElsewhereAtOnce() {
        #expect(
            runsElsewhere { job in
                WorkerThreads.shared.allowingDeferral {
                    WorkerThreads.shared.runAfterCurrentJob(job)
                }
                WorkerThreads.shared.releaseDeferredJob()
            })
    }

    /// A thread outside the pool that runs a job as a worker keeps the job's deferred work for
    /// itself, after the job, as a pool thread does: a command started there is watched once
    /// its start has returned, not meanwhile on another thread.
    @Test func aThreadOutsideThePoolRunsAJobAsAWorker() {
        let kept = keptWork { job in Thread { WorkerThreads.shared.runAsWorker(job) }.start() }
        #expect(kept.ran)
        #expect(kept.events == ["job returns", "deferred"])
        #expect(kept.threads.count == 1)
    }

    /// On a pool thread, whose next jobs would wait for it, the deferred work goes elsewhere.
    @Test func aPoolThreadRunningAJobAsAWorkerHandsOnItsDeferredWork() {
        #expect(
            runsElsewhere { job in
                WorkerThreads.shared.runAsWorker {
                    WorkerThreads.shared.allowingDeferral {
                        WorkerThreads.shared.runAfterCurrentJob(job)
                    }
                }
            })
    }

    /// A procedure that leaves work for the thread that started it, then finishes.
    private final class DeferringProcedure: Procedure, @unchecked Sendable {
        let deferredWork: @Sendable () -> Void

        init(deferredWork: @escaping @Sendable () -> Void) {
            self.deferredWork = deferredWork
            super.init()
        }

        override func execute() {
            WorkerThreads.shared.runAfterCurrentJob(deferredWork)
            finish()
        }
    }

    @Test func aQueueHandsOnDeferredWorkBeforeStartingTheNextOperation() {
        // One slot, so one worker thread: it starts `first`, then `second` itself. `second`
        // blocks until the work `first` deferred has run, which must not wait for `second`.
        let deferredRan = DispatchSemaphore(value: 0)
        let first = DeferringProcedure { deferredRan.signal() }
        let waited = Locked<DispatchTimeoutResult?>(nil)
        let second = BlockProcedure {
            waited.withLock { $0 = deferredRan.wait(timeout: .now() + 5) }
        }
        second.addDependency(first)
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        queue.addOperations([first, second])
        queue.waitUntilAllOperationsAreFinished()
        #expect(waited.withLock { $0 } == .success)
    }
}

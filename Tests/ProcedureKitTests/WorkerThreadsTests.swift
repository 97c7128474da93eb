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

    @Test func aDeferredJobRunsOnTheSameThreadOnceTheCurrentJobReturns() {
        let events = Recorder<String>()
        let threads = Recorder<UInt>()
        let done = DispatchSemaphore(value: 0)
        WorkerThreads.shared.run {
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
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(events.all == ["job returns", "deferred"])
        #expect(Set(threads.all).count == 1)
    }

    @Test func withoutPermissionAJobIsNotDeferred() {
        let handedOn = DispatchSemaphore(value: 0)
        let result = Locked<DispatchTimeoutResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        WorkerThreads.shared.run {
            WorkerThreads.shared.runAfterCurrentJob { handedOn.signal() }
            // Deferred, it would wait for this job to return: the wait would time out.
            result.withLock { $0 = handedOn.wait(timeout: .now() + 5) }
            done.signal()
        }
        done.wait()
        #expect(result.withLock { $0 } == .success)
    }

    @Test func aReleasedJobRunsElsewhereAtOnce() {
        let handedOn = DispatchSemaphore(value: 0)
        let result = Locked<DispatchTimeoutResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        WorkerThreads.shared.run {
            WorkerThreads.shared.allowingDeferral {
                WorkerThreads.shared.runAfterCurrentJob { handedOn.signal() }
            }
            WorkerThreads.shared.releaseDeferredJob()
            result.withLock { $0 = handedOn.wait(timeout: .now() + 5) }
            done.signal()
        }
        done.wait()
        #expect(result.withLock { $0 } == .success)
    }

    /// A thread outside the pool that runs a job as a worker keeps the job's deferred work for
    /// itself, after the job, as a pool thread does: a command started there is watched once
    /// its start has returned, not meanwhile on another thread.
    @Test func aThreadOutsideThePoolRunsAJobAsAWorker() {
        let events = Recorder<String>()
        let threads = Recorder<UInt>()
        let done = DispatchSemaphore(value: 0)
        Thread {
            WorkerThreads.shared.runAsWorker {
                threads.append(currentThread())
                WorkerThreads.shared.allowingDeferral {
                    WorkerThreads.shared.runAfterCurrentJob {
                        events.append("deferred")
                        threads.append(currentThread())
                    }
                }
                usleep(20_000)  // time for another thread to run it, were it handed on
                events.append("job returns")
            }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(events.all == ["job returns", "deferred"])
        #expect(Set(threads.all).count == 1)
    }

    /// On a pool thread, whose next jobs would wait for it, the deferred work goes elsewhere.
    @Test func aPoolThreadRunningAJobAsAWorkerHandsOnItsDeferredWork() {
        let handedOn = DispatchSemaphore(value: 0)
        let result = Locked<DispatchTimeoutResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        WorkerThreads.shared.run {
            WorkerThreads.shared.runAsWorker {
                WorkerThreads.shared.allowingDeferral {
                    WorkerThreads.shared.runAfterCurrentJob { handedOn.signal() }
                }
            }
            result.withLock { $0 = handedOn.wait(timeout: .now() + 5) }
            done.signal()
        }
        done.wait()
        #expect(result.withLock { $0 } == .success)
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

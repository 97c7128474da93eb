import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The threads that run queue workers: reused while work keeps coming, created when none is
/// idle, and retired after a while without work.
///
/// Dispatch on Linux runs about one thread per core and does not add threads when they block,
/// so an `execute()` that blocks (a `BlockProcedure` that sleeps, say) would hold back others
/// the queue's limit allows. Plain threads do not have that problem.
package final class WorkerThreads: Sendable {
    package static let shared = WorkerThreads()

    /// How long an idle thread waits for work before it exits.
    static let idleTimeout = DispatchTimeInterval.seconds(10)

    private final class Worker: Sendable {
        let wake = DispatchSemaphore(value: 0)
        let job = Locked<(@Sendable () -> Void)?>(nil)
        /// While the current job is finishing: whether it takes a job to run next, and that job.
        let next = Locked<(accepting: Bool, job: (@Sendable () -> Void)?)>((false, nil))
    }

    private let idle = Locked<[Worker]>([])

    /// The pool's worker on this thread, if this is one of the pool's threads.
    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static var current: Worker? {
        pthread_getspecific(currentKey).map {
            Unmanaged<Worker>.fromOpaque($0).takeUnretainedValue()
        }
    }

    /// Runs `body` on a pool thread whose job ends as soon as `body` returns: the first job
    /// `run(_:)` is given meanwhile runs next on this thread, rather than waking another one.
    ///
    /// For a job whose last act readies more work (a finished command readying the next), so
    /// that the work continues without a thread switch.
    package func finishingCurrentJob(_ body: () -> Void) {
        guard let worker = Self.current else { return body() }
        worker.next.withLock { $0.accepting = true }
        body()
        worker.next.withLock { $0.accepting = false }
    }

    /// Runs `job` on an idle thread, or on a new one if none is idle.
    package func run(_ job: @escaping @Sendable () -> Void) {
        if let worker = Self.current {
            let deferred = worker.next.withLock { next -> Bool in
                guard next.accepting, next.job == nil else { return false }
                next.job = job
                return true
            }
            if deferred { return }
        }
        if let worker = idle.withLock({ $0.popLast() }) {
            worker.job.withLock { $0 = job }
            worker.wake.signal()
            return
        }
        let worker = Worker()
        worker.job.withLock { $0 = job }
        Thread { self.loop(worker) }.start()
    }

    private func loop(_ worker: Worker) {
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(worker).toOpaque())
        while true {
            if let job = worker.job.withLock({ $0.take() }) { job() }
            while let next = worker.next.withLock({ $0.job.take() }) { next() }
            idle.withLock { $0.append(worker) }
            if worker.wake.wait(timeout: .now() + Self.idleTimeout) == .timedOut {
                let retired = idle.withLock { idle in
                    guard let index = idle.firstIndex(where: { $0 === worker }) else {
                        return false
                    }
                    idle.remove(at: index)
                    return true
                }
                if retired { return }
                // A job was handed over just as the wait timed out: take it.
                worker.wake.wait()
            }
        }
    }
}

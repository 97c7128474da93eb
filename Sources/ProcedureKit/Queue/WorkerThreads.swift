import Dispatch
import Foundation

/// The threads that run queue workers: reused while work keeps coming, created when none is
/// idle, and retired after a while without work.
///
/// Dispatch on Linux runs about one thread per core and does not add threads when they block,
/// so an `execute()` that blocks (a `BlockProcedure` that sleeps, say) would hold back others
/// the queue's limit allows. Plain threads do not have that problem.
final class WorkerThreads: Sendable {
    static let shared = WorkerThreads()

    /// How long an idle thread waits for work before it exits.
    static let idleTimeout = DispatchTimeInterval.seconds(10)

    private final class Worker: Sendable {
        let wake = DispatchSemaphore(value: 0)
        let job = Locked<(@Sendable () -> Void)?>(nil)
    }

    private let idle = Locked<[Worker]>([])

    /// Runs `job` on an idle thread, or on a new one if none is idle.
    func run(_ job: @escaping @Sendable () -> Void) {
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
        while true {
            if let job = worker.job.withLock({ $0.take() }) { job() }
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

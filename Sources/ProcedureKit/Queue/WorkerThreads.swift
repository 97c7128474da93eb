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
    }

    /// A job set aside by ``capturingNextJob(_:)``; used by one thread only.
    private final class Capture {
        var job: (@Sendable () -> Void)?
    }

    /// What a pool thread knows about itself; used by that thread only.
    private final class ThreadContext {
        /// Whether ``runAfterCurrentJob(_:)`` may keep a job for this thread now.
        var mayDefer = false
        /// The job to run when the current one returns.
        var deferred: (@Sendable () -> Void)?
    }

    private static let contextKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static var currentContext: ThreadContext? {
        guard let pointer = pthread_getspecific(contextKey) else { return nil }
        return Unmanaged<ThreadContext>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body` (on a pool thread) allowing ``runAfterCurrentJob(_:)`` to keep one job for
    /// this thread, to run once its current job returns.
    ///
    /// For work known not to block once `body` returns: a queue starting one operation.
    package func allowingDeferral(_ body: () -> Void) {
        guard let context = Self.currentContext else { return body() }
        let outer = context.mayDefer
        context.mayDefer = true
        body()
        context.mayDefer = outer
    }

    /// Runs `job` on this thread when its current job returns, if called within
    /// ``allowingDeferral(_:)`` and no job is kept yet; otherwise as ``run(_:)`` does.
    ///
    /// A command watcher started while a thread starts a command: the same thread watches it
    /// next, instead of waking another.
    package func runAfterCurrentJob(_ job: @escaping @Sendable () -> Void) {
        if let context = Self.currentContext, context.mayDefer, context.deferred == nil {
            context.deferred = job
            return
        }
        run(job)
    }

    /// Hands a job kept by ``runAfterCurrentJob(_:)`` to another thread: for a thread about to
    /// do work that may take long.
    package func releaseDeferredJob() {
        guard let context = Self.currentContext, let job = context.deferred else { return }
        context.deferred = nil
        run(job)
    }

    /// Runs `job` on this thread as a pool thread runs its jobs: a job it keeps for this thread
    /// with ``runAfterCurrentJob(_:)`` (a command's watcher) runs here once it returns, and so
    /// on. On a pool thread, whose own jobs these would delay, a kept job goes to another thread.
    ///
    /// For a thread that would otherwise wait for the work `job` starts: the work keeps the
    /// order it has on a pool thread (a command is watched once its start returns).
    package func runAsWorker(_ job: @escaping @Sendable () -> Void) {
        if Self.currentContext != nil {
            job()
            return releaseDeferredJob()
        }
        let context = ThreadContext()
        pthread_setspecific(Self.contextKey, Unmanaged.passUnretained(context).toOpaque())
        Self.run(job, keptIn: context)
        pthread_setspecific(Self.contextKey, nil)
        withExtendedLifetime(context) {}
    }

    /// Runs `job`, then the job it kept in `context` for this thread, and so on.
    private static func run(_ job: (@Sendable () -> Void)?, keptIn context: ThreadContext) {
        var next = job
        while let job = next {
            job()
            next = context.deferred
            context.deferred = nil
        }
    }

    private let idle = Locked<[Worker]>([])

    private static let captureKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body`; the first job ``run(_:)`` is given on this thread meanwhile is not handed
    /// to another thread but returned, for the caller to run itself.
    ///
    /// For a thread whose next act would be to wait, while `body` readies more work (a finished
    /// command readying the next one): the work continues without a thread switch.
    package func capturingNextJob(_ body: () -> Void) -> (@Sendable () -> Void)? {
        let capture = Capture()
        let previous = pthread_getspecific(Self.captureKey)
        pthread_setspecific(Self.captureKey, Unmanaged.passUnretained(capture).toOpaque())
        withExtendedLifetime(capture) { body() }
        pthread_setspecific(Self.captureKey, previous)
        return capture.job
    }

    /// Runs `job` on an idle thread, or on a new one if none is idle (or hands it to the
    /// caller of ``capturingNextJob(_:)`` on this thread).
    package func run(_ job: @escaping @Sendable () -> Void) {
        if let pointer = pthread_getspecific(Self.captureKey) {
            let capture = Unmanaged<Capture>.fromOpaque(pointer).takeUnretainedValue()
            if capture.job == nil {
                capture.job = job
                return
            }
        }
        if let worker = idle.withLock({ $0.popLast() }) {
            worker.job.withLock { $0 = job }
            worker.wake.signal()
            return
        }
        let worker = Worker()
        worker.job.withLock { $0 = job }
        Self.startThread { self.loop(worker) }
    }

    /// What a new thread runs, passed through `pthread_create`'s pointer.
    private final class ThreadBody {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread. A POSIX thread rather than a Foundation `Thread`:
    /// the first Foundation thread of a process sets up `Thread.current` and the thread's
    /// name, which nothing here uses (1.5 % of a short run's time).
    package static func startThread(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { pointer in
                Unmanaged<ThreadBody>.fromOpaque(pointer!).takeRetainedValue().body()
                return nil
            }, context)
        guard started == 0 else {
            // Out of threads for now (EAGAIN): Foundation's thread, which waits no better
            // but is what ran here before.
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            return Thread { body() }.start()
        }
    }

    private func loop(_ worker: Worker) {
        let context = ThreadContext()
        pthread_setspecific(Self.contextKey, Unmanaged.passUnretained(context).toOpaque())
        while true {
            Self.run(worker.job.withLock { $0.take() }, keptIn: context)
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

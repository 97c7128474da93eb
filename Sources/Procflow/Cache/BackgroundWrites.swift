import CProcflow
import Dispatch
import ProcedureKit

/// Writes to the state directory that a run need not wait for: the content of a generated
/// file in the store, a replaced record's history. A step's dependents start while they are
/// written, rather than after (a linked program of 158 KB stored and the history of its 300
/// inputs rewritten: about half a millisecond between a link and the command after it).
///
/// The writes are done one at a time, in the order given, on a thread of their own at the
/// lowest priority (nice 19), so that it does not take the place of the thread starting the
/// next command; ``wait()`` returns once those given so far are done. Not `SCHED_IDLE`, which
/// would run it only on an idle CPU: preempted while it holds a lock the run's threads take
/// (the cache's), it would hold them up until a CPU idles. What reads the store waits for the
/// writes that concern it (``StepCache``), so that it finds what was given to be written. The
/// thread ends after a second without writes. At most ``mostPending`` writes, holding at most
/// ``mostHeld`` bytes, wait: one more waits for them to be done.
final class BackgroundWrites: Sendable {
    /// A write given, and the bytes it holds until it is done.
    private typealias Write = (work: @Sendable () -> Void, bytes: Int)

    private struct Queue {
        /// The writes given and not yet taken: a taken one's place is emptied.
        var writes: [Write?] = []
        var next = 0
        /// The bytes the writes not yet done hold.
        var held = 0
        /// Whether the thread runs.
        var hasThread = false
        /// Whether the thread waits for a write, to be woken.
        var waiting = false
    }

    /// How long the thread waits for a write before it ends.
    static let idleTimeout = DispatchTimeInterval.seconds(1)
    /// The most writes left to do, and the most bytes they hold, before ``add(holding:_:)``
    /// waits for them: the thread runs at the lowest priority, and what the writes hold
    /// (contents of files) must not pile up while every CPU is busy.
    static let mostPending = 64
    static let mostHeld = 8 << 20

    private let queue = Locked(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let pending = DispatchGroup()

    /// Does `write`, which holds `bytes` (the content it writes), after those given before
    /// it, on the writes' thread.
    func add(holding bytes: Int = 0, _ write: @escaping @Sendable () -> Void) {
        pending.enter()
        enum Then { case start, wake, nothing }
        let (then, full) = queue.withLock { queue -> (Then, Bool) in
            queue.writes.append((write, bytes))
            queue.held += bytes
            let full =
                queue.writes.count - queue.next >= Self.mostPending || queue.held > Self.mostHeld
            if !queue.hasThread {
                queue.hasThread = true
                return (.start, full)
            }
            guard queue.waiting else { return (.nothing, full) }
            queue.waiting = false
            return (.wake, full)
        }
        switch then {
        case .start: WorkerThreads.startThread { [self] in run() }
        case .wake: wake.signal()
        case .nothing: break
        }
        if full { wait() }
    }

    /// Waits until the writes given so far are done.
    func wait() {
        pending.wait()
    }

    /// What the thread does: the writes in order, then waits for more, until none comes.
    private func run() {
        procflow_thread_lowest_priority()
        while true {
            if let write = next() {
                write.work()
                queue.withLock { $0.held -= write.bytes }
                pending.leave()
                continue
            }
            guard wake.wait(timeout: .now() + Self.idleTimeout) == .timedOut else { continue }
            let ends = queue.withLock { queue -> Bool in
                // Still waiting: no write came. Otherwise one did, and its wake-up is coming.
                guard queue.waiting else { return false }
                queue.waiting = false
                queue.hasThread = false
                return true
            }
            if ends { return }
            wake.wait()
        }
    }

    /// The next write, taken from the queue; `nil` if there is none, and then the thread is
    /// waiting.
    private func next() -> Write? {
        queue.withLock { queue in
            guard queue.next < queue.writes.count else {
                queue.writes = []
                queue.next = 0
                queue.waiting = true
                return nil
            }
            defer {
                queue.next += 1
                // Places taken go, so that writes that keep coming never fill an array.
                if queue.next >= Self.mostPending {
                    queue.writes.removeFirst(queue.next)
                    queue.next = 0
                }
            }
            return queue.writes[queue.next].take()
        }
    }
}

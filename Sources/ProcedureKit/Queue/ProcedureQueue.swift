import Dispatch
import Foundation
import Synchronization

/// Runs procedures and plain Foundation operations, honouring their dependencies, conditions
/// and mutual exclusion, at most ``maxConcurrentOperationCount`` at a time.
///
/// The queue does its own scheduling rather than use Foundation's `OperationQueue`: each
/// operation and each dependency edge costs O(1) amortised work, and nothing recurses with
/// the size of the graph. Operations become ready in any order; ready ones start in the order
/// they became ready.
///
/// Operations start on the library's own worker threads, or on ``underlyingQueue`` if one is
/// set; ``main`` runs them on the main dispatch queue, one at a time.
public final class ProcedureQueue: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside `state`, a `Locked` mutex.

    /// An operation whose dependencies, conditions and exclusivity are satisfied.
    enum ReadyItem {
        case procedure(Procedure)
        case operation(QueuedOperation)
    }

    struct State {
        var ready = RingBuffer<ReadyItem>()
        /// Started and not finished: these hold the slots `maxConcurrentOperationCount` limits.
        var executing = 0
        /// Worker loops alive, and how many of them are inside a start call right now.
        var workers = 0
        var busyWorkers = 0
        /// Added and not finished.
        var members = QueueMembers()
        var underlyingQueue: DispatchQueue?
        var isSuspended = false
        /// Condition evaluations held back while the queue is suspended.
        var heldEvaluations: [@Sendable () -> Void] = []
        var maxConcurrentOperationCount = OperationQueue.defaultMaxConcurrentOperationCount
        var name: String?
        var idleWaiters: [DispatchSemaphore] = []
        /// The group whose children this queue runs, if any.
        weak var owner: GroupProcedure?
        weak var delegate: (any ProcedureQueueDelegate)?
    }

    /// The most worker threads an unlimited queue uses to start operations. Operations that
    /// run asynchronously do not hold a worker, so this limits threads, not concurrency.
    static let unlimitedWorkerCount = 64

    /// How many worker loops to start, and where.
    struct Spawn {
        var count = 0
        /// The underlying queue they run on; `nil` for the library's worker threads.
        var home: DispatchQueue?
    }

    private let state = Locked(State())
    /// Whether a delegate was ever set: spares the finishing path a lock when none was.
    private let hasHadDelegate = Atomic<Bool>(false)
    /// Whether ``underlyingQueue`` is set: spares starting procedures a lock when it is not.
    private let hasUnderlyingQueue = Atomic<Bool>(false)

    /// The queue that runs operations on the main dispatch queue (`DispatchQueue.main`), one at
    /// a time, as the original's `ProcedureQueue.main` does.
    ///
    /// Nothing runs there unless the main dispatch queue is serviced: by `dispatchMain()`, a
    /// run loop on the main thread, or an `async` `main`.
    public static let main: ProcedureQueue = {
        let queue = ProcedureQueue(name: "main", maxConcurrentOperationCount: 1)
        queue.underlyingQueue = .main
        return queue
    }()

    /// Creates a queue.
    ///
    /// - Parameters:
    ///   - name: a name for diagnostics.
    ///   - maxConcurrentOperationCount: how many operations may execute at once; the default,
    ///     `OperationQueue.defaultMaxConcurrentOperationCount`, sets no limit.
    public init(
        name: String? = nil,
        maxConcurrentOperationCount: Int = OperationQueue.defaultMaxConcurrentOperationCount
    ) {
        state.withLock {
            $0.name = name
            $0.maxConcurrentOperationCount = maxConcurrentOperationCount
        }
    }

    /// A name for diagnostics.
    public var name: String? {
        // A group's queue is named after the group's type when asked, not when each group is
        // made.
        get {
            state.withLock { state in state.name ?? state.owner.map { "\(type(of: $0)).children" } }
        }
        set { state.withLock { $0.name = newValue } }
    }

    /// How many operations may execute at once; zero or less sets no limit.
    public var maxConcurrentOperationCount: Int {
        get { state.withLock { $0.maxConcurrentOperationCount } }
        set {
            let spawn = state.withLock { state in
                state.maxConcurrentOperationCount = newValue
                return Self.workersToSpawn(&state)
            }
            spawnWorkers(spawn)
        }
    }

    /// Whether the queue holds back operations that are ready to start.
    ///
    /// A suspended queue still lets operations wait for their dependencies, and lets cancelled
    /// operations finish; it evaluates no conditions, as the original does not, and starts
    /// nothing until resumed.
    public var isSuspended: Bool {
        get { state.withLock { $0.isSuspended } }
        set {
            let (spawn, held) = state.withLock { state in
                state.isSuspended = newValue
                var held: [@Sendable () -> Void] = []
                if !newValue { swap(&held, &state.heldEvaluations) }
                return (Self.workersToSpawn(&state), held)
            }
            spawnWorkers(spawn)
            for evaluation in held { evaluation() }
        }
    }

    /// Hears about every operation added to the queue and every procedure finishing in it.
    ///
    /// Held weakly.
    public var delegate: (any ProcedureQueueDelegate)? {
        get { state.withLock { $0.delegate } }
        set {
            if newValue != nil { hasHadDelegate.store(true, ordering: .releasing) }
            state.withLock { $0.delegate = newValue }
        }
    }

    /// The group whose children this queue runs, if any.
    var owner: GroupProcedure? {
        get { state.withLock { $0.owner } }
        set { state.withLock { $0.owner = newValue } }
    }

    /// The dispatch queue operations are started on, or `nil` (the default) for the library's
    /// worker threads.
    ///
    /// A procedure's `execute()` (and the callbacks that come with its start, its will-execute
    /// observers) runs there, as does a plain operation's `start()`; the queue's limit still
    /// applies. Its other callbacks run where its events are handled, as on any queue. Use a
    /// serial queue, or ``main``, for work that must stay on one thread.
    ///
    /// - Precondition: set only while the queue holds no operation, as Foundation's
    ///   `OperationQueue` requires.
    public var underlyingQueue: DispatchQueue? {
        get { state.withLock { $0.underlyingQueue } }
        set {
            state.withLock { state in
                precondition(
                    state.members.count == 0 || state.underlyingQueue === newValue,
                    "The underlying queue of \(state.name ?? "a ProcedureQueue") was set while it "
                        + "held \(state.members.count) operations: set it before adding any.")
                state.underlyingQueue = newValue
                hasUnderlyingQueue.store(newValue != nil, ordering: .releasing)
            }
        }
    }

    /// How many operations have been added and have not finished.
    public var operationCount: Int {
        state.withLock { $0.members.count }
    }

    /// The operations added and not finished, in the order they were added.
    ///
    /// An operation leaves the list once it has finished and its did-finish observers have run.
    public var operations: [Operation] {
        state.withLock { $0.members.inOrder }
    }

    /// Cancels every operation added and not finished, in the order they were added.
    ///
    /// Procedures are cancelled as ``Procedure/cancel()`` does: those not started finish
    /// without executing; those running read `isCancelled`.
    public func cancelAllOperations() {
        for operation in operations { operation.cancel() }
    }

    // MARK: - Adding operations

    /// Adds `operations`; unless they come from the owning group itself, the group is told first
    /// so that it counts them among its children.
    func add(_ operations: [Operation], fromOwner: Bool) {
        guard !operations.isEmpty else { return }
        // The indices of the members' entries: on the stack, unless there are many.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: operations.count) { indices in
            let (owner, delegate) = state.withLock { state in
                for (position, operation) in operations.enumerated() {
                    indices[position] = state.members.add(operation)
                }
                return (state.owner, state.delegate)
            }
            if !fromOwner { owner?.queueWillAdd(operations) }
            for operation in operations {
                delegate?.procedureQueue(self, willAddOperation: operation)
            }
            enqueue(operations, at: UnsafeBufferPointer(indices))
            for operation in operations {
                delegate?.procedureQueue(self, didAddOperation: operation)
            }
        }
    }

    /// Starts `operations`, whose entries among the members are at `indices`, waiting for what
    /// they need, handing those that need nothing to the ready list.
    private func enqueue(_ operations: [Operation], at indices: UnsafeBufferPointer<Int>) {
        var ready: [ReadyItem] = []
        for (operation, index) in zip(operations, indices) {
            if let procedure = operation as? Procedure {
                if procedure.enqueue(on: self, member: index) == .ready {
                    ready.append(.procedure(procedure))
                }
            } else {
                let queued = QueuedOperation(operation, queue: self, member: index)
                if queued.waitForDependencies() { ready.append(.operation(queued)) }
            }
        }
        enqueueReady(ready)
    }

    /// Blocks the calling thread until every operation added so far, and every operation those
    /// add while this waits, has finished.
    public func waitUntilAllOperationsAreFinished() {
        let semaphore = state.withLock { state -> DispatchSemaphore? in
            guard state.members.count > 0 else { return nil }
            let semaphore = DispatchSemaphore(value: 0)
            state.idleWaiters.append(semaphore)
            return semaphore
        }
        semaphore?.wait()
    }

    // MARK: - Scheduling

    func enqueueReady(_ item: ReadyItem) {
        enqueueReady([item])
    }

    func enqueueReady(_ items: [ReadyItem]) {
        guard !items.isEmpty else { return }
        let spawn = state.withLock { state in
            for item in items { state.ready.append(item) }
            return Self.workersToSpawn(&state)
        }
        spawnWorkers(spawn)
    }

    /// Called when `operation`, which was added to this queue, has finished.
    ///
    /// - Parameters:
    ///   - member: the index of its entry among the members.
    ///   - releasingSlot: whether it had been started, and so held a slot.
    func operationDidFinish(_ operation: Operation, member: Int, releasingSlot: Bool) {
        let (spawn, waiters, owner, delegate, removed) = state.withLock { state in
            if releasingSlot { state.executing -= 1 }
            let removed = state.members.remove(at: member)
            var waiters: [DispatchSemaphore] = []
            if state.members.count == 0 { swap(&waiters, &state.idleWaiters) }
            return (Self.workersToSpawn(&state), waiters, state.owner, state.delegate, removed)
        }
        // Released here, not under the lock.
        _ = consume removed
        if let delegate {
            let error = (operation as? Procedure)?.error
            delegate.procedureQueue(self, didFinishOperation: operation, with: error)
        }
        for waiter in waiters { waiter.signal() }
        spawnWorkers(spawn)
        owner?.childDidFinish(operation)
    }

    /// Called as `procedure`, which was added to this queue, is about to finish.
    func procedureWillFinish(_ procedure: Procedure, with error: (any Error)?) {
        guard hasHadDelegate.load(ordering: .acquiring),
            let delegate = state.withLock({ $0.delegate })
        else { return }
        delegate.procedureQueue(self, willFinishProcedure: procedure, with: error)
    }

    /// Runs `evaluation` of a procedure's conditions now, or, while the queue is suspended,
    /// once it is resumed.
    func evaluateUnlessSuspended(_ evaluation: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.isSuspended else { return true }
            state.heldEvaluations.append(evaluation)
            return false
        }
        if now { evaluation() }
    }

    /// Gives back a slot taken for an operation that turned out to need none.
    func releaseSlot() {
        let spawn = state.withLock { state in
            state.executing -= 1
            return Self.workersToSpawn(&state)
        }
        spawnWorkers(spawn)
    }

    /// How many more worker loops to start so that every ready operation that may start now
    /// has a worker looking for it, and where they run.
    private static func workersToSpawn(_ state: inout State) -> Spawn {
        guard !state.isSuspended, !state.ready.isEmpty else { return Spawn() }
        let limit = state.maxConcurrentOperationCount
        let freeSlots = limit > 0 ? limit - state.executing : Int.max
        let workerCap = limit > 0 ? limit : unlimitedWorkerCount
        let searching = state.workers - state.busyWorkers
        let wanted = min(state.ready.count, freeSlots) - searching
        let spawn = min(wanted, workerCap - state.workers)
        guard spawn > 0 else { return Spawn() }
        state.workers += spawn
        return Spawn(count: spawn, home: state.underlyingQueue)
    }

    private func spawnWorkers(_ spawn: Spawn) {
        guard spawn.count > 0 else { return }
        if let home = spawn.home {
            for _ in 0..<spawn.count {
                home.async { QueueWorker.running(for: self) { self.runWorker(home: home) } }
            }
        } else {
            for _ in 0..<spawn.count {
                WorkerThreads.shared.run { self.runWorker(home: nil) }
            }
        }
    }

    /// Starts ready operations one after another until none may start here.
    ///
    /// - Parameter home: the underlying queue this worker runs on, `nil` on a worker thread.
    private func runWorker(home: DispatchQueue?) {
        var wasBusy = false
        while let item = nextItem(afterBusy: wasBusy, home: home) {
            // Work a start left for this thread goes elsewhere: another start comes first.
            if wasBusy { WorkerThreads.shared.releaseDeferredJob() }
            WorkerThreads.shared.allowingDeferral {
                switch item {
                case .procedure(let procedure): procedure.start(from: self)
                case .operation(let operation): operation.start()
                }
            }
            wasBusy = true
        }
    }

    /// The next operation for a worker running on `home` to start, taking a slot for it.
    ///
    /// A worker whose home is no longer the underlying queue (it was set as the worker looked
    /// for work) stops, and others are started where operations now run.
    private func nextItem(afterBusy wasBusy: Bool, home: DispatchQueue?) -> ReadyItem? {
        let (item, spawn) = state.withLock { state -> (ReadyItem?, Spawn) in
            if wasBusy { state.busyWorkers -= 1 }
            let limit = state.maxConcurrentOperationCount
            guard state.underlyingQueue === home, !state.isSuspended,
                limit <= 0 || state.executing < limit, let item = state.ready.popFirst()
            else {
                state.workers -= 1
                return (nil, Self.workersToSpawn(&state))
            }
            state.executing += 1
            state.busyWorkers += 1
            return (item, Spawn())
        }
        spawnWorkers(spawn)
        return item
    }

    /// Whether `procedure`, given a slot, must start on the underlying queue rather than on
    /// this thread (the thread handling its events, which may be any); if so, its start is
    /// sent there.
    func sendsStartToUnderlyingQueue(_ procedure: Procedure) -> Bool {
        guard hasUnderlyingQueue.load(ordering: .acquiring), !QueueWorker.isRunning(for: self),
            let home = underlyingQueue
        else { return false }
        home.async { QueueWorker.running(for: self) { procedure.start(from: self) } }
        return true
    }
}

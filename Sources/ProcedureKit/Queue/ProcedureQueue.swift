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
        var unfinished = 0
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

    private let state = Locked(State())
    /// Whether a delegate was ever set: spares the finishing path a lock when none was.
    private let hasHadDelegate = Atomic<Bool>(false)

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
        get { state.withLock { $0.name } }
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

    /// How many operations have been added and have not finished.
    public var operationCount: Int {
        state.withLock { $0.unfinished }
    }

    // MARK: - Adding operations

    /// Adds `operation`: a ``Procedure`` or any Foundation `Operation`.
    public func addOperation(_ operation: Operation) {
        addOperations([operation])
    }

    /// Adds a block to run as an operation.
    public func addOperation(_ block: @escaping @Sendable () -> Void) {
        addOperation(BlockOperation(block: block))
    }

    /// Adds `operations`, optionally waiting until all of them have finished.
    public func addOperations(_ operations: [Operation], waitUntilFinished: Bool = false) {
        add(operations, fromOwner: false)
        if waitUntilFinished {
            for operation in operations { operation.waitUntilFinished() }
        }
    }

    /// Adds `operations`; unless they come from the owning group itself, the group is told first
    /// so that it counts them among its children.
    func add(_ operations: [Operation], fromOwner: Bool) {
        guard !operations.isEmpty else { return }
        let (owner, delegate) = state.withLock { state in
            state.unfinished += operations.count
            return (state.owner, state.delegate)
        }
        if !fromOwner { owner?.queueWillAdd(operations) }
        for operation in operations { delegate?.procedureQueue(self, willAddOperation: operation) }
        enqueue(operations)
        for operation in operations { delegate?.procedureQueue(self, didAddOperation: operation) }
    }

    /// Starts `operations` waiting for what they need, handing those that need nothing to the
    /// ready list.
    private func enqueue(_ operations: [Operation]) {
        var ready: [ReadyItem] = []
        for operation in operations {
            if let procedure = operation as? Procedure {
                if procedure.enqueue(on: self) == .ready { ready.append(.procedure(procedure)) }
            } else {
                let queued = QueuedOperation(operation, queue: self)
                if queued.waitForDependencies() { ready.append(.operation(queued)) }
            }
        }
        enqueueReady(ready)
    }

    /// Adds each of `operations`.
    public func addOperations(_ operations: Operation...) {
        addOperations(operations)
    }

    /// Adds `operation`.
    public func add(operation: Operation) {
        addOperation(operation)
    }

    /// Adds each of `operations`.
    public func add<S: Sequence<Operation>>(operations: S) {
        addOperations(Array(operations))
    }

    /// Adds each of `operations`.
    public func add(operations: Operation...) {
        addOperations(operations)
    }

    /// Blocks the calling thread until every operation added so far, and every operation those
    /// add while this waits, has finished.
    public func waitUntilAllOperationsAreFinished() {
        let semaphore = state.withLock { state -> DispatchSemaphore? in
            guard state.unfinished > 0 else { return nil }
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
    /// - Parameter releasingSlot: whether it had been started, and so held a slot.
    func operationDidFinish(_ operation: Operation, releasingSlot: Bool) {
        let (spawn, waiters, owner, delegate) = state.withLock { state in
            if releasingSlot { state.executing -= 1 }
            state.unfinished -= 1
            var waiters: [DispatchSemaphore] = []
            if state.unfinished == 0 { swap(&waiters, &state.idleWaiters) }
            return (Self.workersToSpawn(&state), waiters, state.owner, state.delegate)
        }
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
    /// has a worker looking for it.
    private static func workersToSpawn(_ state: inout State) -> Int {
        guard !state.isSuspended, !state.ready.isEmpty else { return 0 }
        let limit = state.maxConcurrentOperationCount
        let freeSlots = limit > 0 ? limit - state.executing : Int.max
        let workerCap = limit > 0 ? limit : unlimitedWorkerCount
        let searching = state.workers - state.busyWorkers
        let wanted = min(state.ready.count, freeSlots) - searching
        let spawn = min(wanted, workerCap - state.workers)
        guard spawn > 0 else { return 0 }
        state.workers += spawn
        return spawn
    }

    private func spawnWorkers(_ count: Int) {
        for _ in 0..<count {
            WorkerThreads.shared.run { self.runWorker() }
        }
    }

    /// Starts ready operations one after another until none may start.
    private func runWorker() {
        var wasBusy = false
        while let item = nextItem(afterBusy: wasBusy) {
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

    private func nextItem(afterBusy wasBusy: Bool) -> ReadyItem? {
        state.withLock { state in
            if wasBusy { state.busyWorkers -= 1 }
            let limit = state.maxConcurrentOperationCount
            guard !state.isSuspended, limit <= 0 || state.executing < limit,
                let item = state.ready.popFirst()
            else {
                state.workers -= 1
                return nil
            }
            state.executing += 1
            state.busyWorkers += 1
            return item
        }
    }
}

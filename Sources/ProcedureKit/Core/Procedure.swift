import Dispatch
import Foundation
import Synchronization

/// A unit of work: a Foundation `Operation` with conditions, observers, cancellation and errors.
///
/// Subclass it, override ``execute()``, and call ``finish(with:)`` exactly once when the work is
/// done — synchronously inside `execute()` or later from any thread. Add it to a
/// ``ProcedureQueue`` (or a ``GroupProcedure``) to run it.
///
/// A procedure moves through initialized → pending → executing → finishing → finished. While
/// pending it waits, in order, for its dependencies, for its conditions (each evaluated once
/// its own dependencies, those it produces included, have finished; one failing decides for
/// all), for the mutual-exclusion categories it needs, and for a free slot in its queue. The
/// first `cancel` wins; the first `finish` wins; an error given to `cancel` beats one given to
/// a later `finish`. A procedure cancelled before it starts never
/// runs `execute()` and finishes without waiting, unless it disables automatic finishing (see
/// ``init(disableAutomaticFinishing:)``).
///
/// `execute()` and every callback of one procedure (observers, the `procedure…` hooks, condition
/// evaluation) run one at a time, never concurrently with each other.
///
/// A will-execute or will-finish observer can hold that event back, for asynchronous work that
/// must come first, by keeping the ``PendingEvent`` it is given.
open class Procedure: Operation, @unchecked Sendable {
    // @unchecked Sendable: every mutable stored property is inside `protected` (a `Locked` mutex) or is
    // the Atomic `unresolvedDependencies`. Subclasses own the safety of what they add.

    enum Event: Sendable {
        case start(ProcedureQueue)
        case didCancel((any Error)?)
        case finish((any Error)?)
        case work(@Sendable () -> Void)
        /// A held execute, released: `execute()` and the did-execute observers.
        case resumeExecute
        /// A held finish, released: the procedure finishes.
        case resumeFinish
    }

    struct Protected {
        var state = ProcedureState.initialized
        var phase = PendingPhase.waitingForDependencies
        var isCancelled = false
        var isFinishRequested = false
        var cancelError: (any Error)?
        var error: (any Error)?
        var name: String?
        var observers: [any ProcedureObserver] = []
        var conditions: [Condition] = []
        /// The evaluation of the conditions under way, cancelled if the procedure is.
        var conditionEvaluation: ConditionEvaluation?
        var dependencies: [Operation] = []
        /// Whoever waits for this procedure to finish; emptied when it does.
        var waiters: [any DependencyWaiter] = []
        /// Finished, with its did-finish observers run and its dependents told.
        var isSettled = false
        /// Threads in ``waitUntilFinished()``, woken once it has settled.
        var settleWaiters: [DispatchSemaphore] = []
        var queue: ProcedureQueue?
        /// The index of its entry among the queue's members.
        var queueMember = 0
        var holdsQueueSlot = false
        var exclusivityCategories: [String] = []
        var isHandlingEvents = false
        /// The execute or finish being announced or held back (see `Procedure+PendingEvents`).
        var heldEvent: HeldEvent?
        /// Operations to add and children to announce before the held event; made when the
        /// first is, so that a procedure never held does not pay for it.
        var workBeforeHeldEvent: RingBuffer<@Sendable () -> Void>?
        var events = EventQueue<Event>()
        /// Called each time an input is injected (see `bind(to:)`).
        var inputInjectionObservers: [@Sendable () -> Void] = []
        /// The group this procedure is a child of hears it is about to finish before its
        /// observers do, so that the group sees the cause of a failure before its
        /// consequences (dependents that observers cancel).
        var parentWillFinish: (@Sendable (Procedure, (any Error)?) -> Void)?

        mutating func transition(to next: ProcedureState) {
            precondition(
                state.canTransition(to: next),
                "A procedure cannot go from \(state) to \(next).")
            state = next
        }
    }

    let protected = Locked(Protected())
    private let unresolvedDependencies = Atomic<Int>(0)

    /// Whether the procedure finishes only by calling ``finish(with:)`` itself, even when it is
    /// cancelled.
    public let isAutomaticFinishingDisabled: Bool

    /// Creates a procedure that finishes at once, without executing, if it is cancelled before
    /// it starts.
    public override init() {
        isAutomaticFinishingDisabled = false
        super.init()
    }

    /// Creates a procedure that may take charge of finishing even when it is cancelled.
    ///
    /// With `disableAutomaticFinishing` set, a procedure cancelled before it starts does not
    /// finish at once: it stops waiting for its dependencies, conditions and mutual exclusion,
    /// takes the next free slot of its queue and runs `execute()`, which must call
    /// ``finish(with:)`` — read ``isCancelled`` there to clean up and finish early. Use it for
    /// work that must always tidy up after itself.
    ///
    /// - Parameter disableAutomaticFinishing: whether the procedure always executes, cancelled
    ///   or not, and finishes only when it calls `finish`.
    public init(disableAutomaticFinishing: Bool) {
        isAutomaticFinishingDisabled = disableAutomaticFinishing
        super.init()
    }

    deinit {
        Self.releaseIteratively(takeDependencies())
    }

    /// Releases `operations` without recursing through what they keep alive.
    ///
    /// Releasing a long chain would otherwise recurse once per link (each procedure holds its
    /// dependencies, each group its children), so what uniquely held operations own is taken
    /// from them and released here, in a loop.
    static func releaseIteratively(_ operations: consuming [Operation]) {
        // Consumed, not copied: a second reference to the array would make every element
        // look shared, and the caller's copy would then release them recursively.
        var stack = consume operations
        while !stack.isEmpty {
            var operation = stack.removeLast()
            if isKnownUniquelyReferenced(&operation), let procedure = operation as? Procedure {
                stack.append(contentsOf: procedure.takeOwnedOperations())
            }
        }
    }

    /// Hands over the operations this procedure keeps alive, for ``releaseIteratively(_:)``.
    func takeOwnedOperations() -> [Operation] {
        takeDependencies()
    }

    final func takeDependencies() -> [Operation] {
        protected.withLock { protected in
            defer { protected.dependencies = [] }
            return protected.dependencies
        }
    }

    // MARK: - Overrides for subclasses

    /// Does the work. Call ``finish(with:)`` when it is done, here or later.
    ///
    /// Not called if the procedure is cancelled before it starts. Cancelling a procedure while
    /// this runs does not interrupt it: read ``isCancelled`` to stop early.
    open func execute() {
        finish()
    }

    /// Called once when the procedure is cancelled, after `execute()` returns if it is running.
    open func procedureDidCancel(with error: (any Error)?) {}

    /// Called as the procedure starts to finish, before will-finish observers.
    open func procedureWillFinish(with error: (any Error)?) {}

    /// Called once the procedure has finished, before did-finish observers.
    open func procedureDidFinish(with error: (any Error)?) {}

    // MARK: - State

    /// The procedure's name; its type name unless set.
    open override var name: String? {
        get { protected.withLock { $0.name } ?? String(describing: type(of: self)) }
        set { protected.withLock { $0.name = newValue } }
    }

    /// The error the procedure failed with: the one given to `cancel(with:)` from that moment,
    /// as in the original; otherwise the one it finishes with, from the moment it starts to
    /// finish, so that will-finish hooks and observers see it.
    public final var error: (any Error)? {
        protected.withLock { $0.state >= .finishing ? $0.error : $0.cancelError }
    }

    /// Whether the procedure has been cancelled.
    open override var isCancelled: Bool {
        protected.withLock { $0.isCancelled }
    }

    open override var isExecuting: Bool {
        protected.withLock { $0.state == .executing || $0.state == .finishing }
    }

    open override var isFinished: Bool {
        protected.withLock { $0.state == .finished }
    }

    open override var isAsynchronous: Bool { true }

    open override var isReady: Bool {
        protected.withLock { $0.state > .pending || ($0.state == .pending && $0.phase == .ready) }
    }

    /// Whether the procedure has been added to a queue.
    public final var isEnqueued: Bool {
        protected.withLock { $0.state != .initialized }
    }

    /// Whether the procedure failed: ``error`` is not `nil`. True at once after
    /// `cancel(with:)` an error, as in the original, and from the moment the procedure starts
    /// to finish with one.
    public final var failed: Bool {
        error != nil
    }

    /// Where the procedure is in its life, as one value.
    public final var status: ProcedureStatus {
        protected.withLock { protected in
            if protected.isCancelled { return .cancelled }
            switch protected.state {
            case .initialized, .pending: return .pending
            case .executing, .finishing: return .executing
            case .finished: return protected.error == nil ? .finished : .failed
            }
        }
    }

    /// The conditions attached to the procedure.
    public final var conditions: [Condition] {
        protected.withLock { $0.conditions }
    }

    /// The observers attached to the procedure, in the order they were added. Emptied once the
    /// procedure has finished, so that observers that capture it do not keep it alive.
    public final var observers: [any ProcedureObserver] {
        protected.withLock { $0.observers }
    }

    /// The queue the procedure was added to, until it finishes.
    final var queue: ProcedureQueue? {
        protected.withLock { $0.queue }
    }

    /// The groups this procedure runs in, innermost first.
    final var ancestorGroups: [GroupProcedure] {
        var groups: [GroupProcedure] = []
        var next = queue?.owner
        while let group = next {
            groups.append(group)
            next = group.queue?.owner
        }
        return groups
    }

    /// Runs `observer` each time an input is injected into this procedure.
    final func addInputInjectionObserver(_ observer: @escaping @Sendable () -> Void) {
        protected.withLock { $0.inputInjectionObservers.append(observer) }
    }

    /// Tells the input injection observers that an input was injected.
    final func didInjectInput() {
        for observer in protected.withLock({ $0.inputInjectionObservers }) { observer() }
    }

    // MARK: - Dependencies

    /// The operations that must finish before this one starts, in the order they were added.
    open override var dependencies: [Operation] {
        protected.withLock { $0.dependencies }
    }

    /// Makes this procedure wait for `operation` (a procedure or any Foundation operation).
    ///
    /// - Precondition: the procedure has not been added to a queue.
    /// Makes this procedure wait for `operation`: before it is added to a queue, or once it is
    /// in one while it still waits for another dependency (as the original's procedures may).
    /// Added later — every dependency finished, or the procedure started — it is kept in
    /// ``dependencies`` and not waited for, as an `Operation`'s would be.
    open override func addDependency(_ operation: Operation) {
        precondition(operation !== self, "A procedure cannot depend on itself.")
        let waitsNow = protected.withLock { protected -> Bool in
            protected.dependencies.append(operation)
            guard protected.state == .pending, protected.phase == .waitingForDependencies
            else { return false }
            // One more to count down, while the count has not reached zero.
            var count = unresolvedDependencies.load(ordering: .acquiring)
            while count > 0 {
                let (exchanged, original) = unresolvedDependencies.compareExchange(
                    expected: count, desired: count + 1, ordering: .acquiringAndReleasing)
                if exchanged { return true }
                count = original
            }
            return false
        }
        if waitsNow { wait(for: operation) }
    }

    /// Makes this procedure wait for `dependency`.
    public final func add(dependency: Operation) {
        addDependency(dependency)
    }

    /// Makes this procedure wait for each of `dependencies`.
    public final func add<S: Sequence<Operation>>(dependencies: S) {
        for dependency in dependencies { addDependency(dependency) }
    }

    /// Removes `operation` from the dependencies of a procedure not yet in a queue.
    open override func removeDependency(_ operation: Operation) {
        protected.withLock { protected in
            precondition(
                protected.state == .initialized,
                "Dependencies can only be removed before the procedure is added to a queue.")
            protected.dependencies.removeAll { $0 === operation }
        }
    }

    // MARK: - Conditions and observers

    /// Attaches `condition`, evaluated after the dependencies finish and before `execute()`.
    ///
    /// - Precondition: the procedure has not been added to a queue.
    public final func addCondition(_ condition: Condition) {
        protected.withLock { protected in
            precondition(
                protected.state == .initialized,
                "Conditions must be added before the procedure is added to a queue.")
            protected.conditions.append(condition)
        }
    }

    /// Attaches `condition`.
    public final func add(condition: Condition) {
        addCondition(condition)
    }

    /// Attaches `observer`; observers are called in the order they were added.
    public final func addObserver(_ observer: any ProcedureObserver) {
        protected.withLock { $0.observers.append(observer) }
        observer.didAttach(to: self)
    }

    /// Attaches `observer` if the procedure has not started to finish, so that it will hear
    /// will-finish; returns false, attaching nothing, if it is finishing or finished.
    final func addObserverBeforeFinishing(_ observer: any ProcedureObserver) -> Bool {
        let added = protected.withLock { protected -> Bool in
            guard protected.state < .finishing else { return false }
            protected.observers.append(observer)
            return true
        }
        if added { observer.didAttach(to: self) }
        return added
    }

    /// Attaches `observer`.
    public final func add(observer: any ProcedureObserver) {
        addObserver(observer)
    }

    // MARK: - Cancelling and finishing

    open override func cancel() {
        cancel(with: nil)
    }

    /// Cancels the procedure, recording `error` as the reason.
    ///
    /// Only the first cancel counts, and cancelling a finishing or finished procedure does
    /// nothing. A running `execute()` is not interrupted; a procedure that has not started
    /// finishes without executing, unless automatic finishing is disabled: then it executes as
    /// soon as a slot is free.
    public final func cancel(with error: (any Error)?) {
        enum Then {
            case notify, finish
            case start(ProcedureQueue)
        }
        var evaluation: ConditionEvaluation?
        let then = protected.withLock { protected -> Then? in
            guard !protected.isCancelled, !protected.isFinishRequested,
                protected.state < .finishing
            else { return nil }
            protected.isCancelled = true
            protected.cancelError = error
            evaluation = protected.conditionEvaluation.take()
            guard protected.state == .pending else { return .notify }
            guard isAutomaticFinishingDisabled else {
                protected.isFinishRequested = true
                return .finish
            }
            // It finishes itself, so it must execute: it stops waiting and takes the next slot.
            guard protected.phase != .ready, let queue = protected.queue else { return .notify }
            protected.phase = .ready
            return .start(queue)
        }
        guard let then else { return }
        evaluation?.cancel()
        post(.didCancel(error))
        switch then {
        case .notify: break
        case .finish: post(.finish(error))
        case .start(let queue): queue.enqueueReady(.procedure(self))
        }
    }

    /// Finishes the procedure, with `error` if it failed.
    ///
    /// Only the first call counts. Calls made before the procedure started are ignored.
    public final func finish(with error: (any Error)? = nil) {
        let accepted = protected.withLock { protected -> Bool in
            guard !protected.isFinishRequested, protected.state == .executing else { return false }
            protected.isFinishRequested = true
            return true
        }
        if accepted { post(.finish(error)) }
    }

    /// Procedures are started by their queue; starting one by hand is a programming error.
    open override func start() {
        preconditionFailure(
            "\(name ?? "A procedure") was started directly: add it to a ProcedureQueue instead.")
    }

    open override func main() {}

    // MARK: - Events

    /// Runs `event` now on this thread if no other event of this procedure is being handled,
    /// or after the one being handled otherwise.
    final func post(_ event: Event) {
        let handleNow = protected.withLock { protected -> Bool in
            if protected.isHandlingEvents {
                protected.events.append(event)
                return false
            }
            protected.isHandlingEvents = true
            return true
        }
        guard handleNow else { return }
        handle(startingWith: event)
    }

    /// Handles `event` and those that follow it, on this thread or, if it is nested deep
    /// already, on another.
    final func handle(startingWith event: Event) {
        if CallDepth.allowsNesting {
            CallDepth.nested { handleEvents(startingWith: event) }
        } else {
            DispatchQueue.global().async {
                CallDepth.nested { self.handleEvents(startingWith: event) }
            }
        }
    }

    final func handleEvents(startingWith first: Event) {
        CurrentProcedure.handling(self) {
            var next: Event? = first
            while let event = next {
                handle(event)
                next = protected.withLock { protected in
                    if protected.heldEvent != nil { return Self.nextWhileHeld(&protected) }
                    guard let event = protected.events.popFirst() else {
                        protected.isHandlingEvents = false
                        return nil
                    }
                    return event
                }
            }
        }
    }

    private func handle(_ event: Event) {
        switch event {
        case .start(let queue):
            if !queue.sendsStartToUnderlyingQueue(self) { handleStart(from: queue) }
        case .didCancel(let error): handleDidCancel(error)
        case .finish(let error): handleFinish(error)
        case .work(let work): work()
        case .resumeExecute: executeAnnounced(observers)
        case .resumeFinish:
            var none: PendingEvent?
            finishAnnounced(protected.withLock { $0.error }, handedOut: &none)
        }
    }

    private enum StartAction {
        case releaseSlot
        case finishCancelled((any Error)?)
        case execute([any ProcedureObserver])
    }

    private func handleStart(from queue: ProcedureQueue) {
        let action = protected.withLock { protected -> StartAction in
            // Cancelled while in the ready list: it finished (or is finishing) without the slot.
            guard !protected.isFinishRequested else { return .releaseSlot }
            protected.holdsQueueSlot = true
            if protected.isCancelled, !isAutomaticFinishingDisabled {
                protected.isFinishRequested = true
                return .finishCancelled(protected.cancelError)
            }
            protected.transition(to: .executing)
            if !protected.observers.isEmpty { protected.heldEvent = HeldEvent(.execute) }
            return .execute(protected.observers)
        }
        switch action {
        case .releaseSlot:
            queue.releaseSlot()
        case .finishCancelled(let error):
            handleFinish(error)
        case .execute(let observers):
            if !observers.isEmpty {
                var pendingExecute: PendingEvent? = PendingEvent(
                    .execute, of: self, isCounted: false)
                for observer in observers {
                    observer.will(execute: self, pendingExecute: pendingExecute!)
                }
                // Held: the event loop resumes it once released.
                guard
                    protected.withLock({ Self.announcementDidEnd(&$0, handedOut: &pendingExecute) })
                else { return }
            }
            executeAnnounced(observers)
        }
    }

    /// Executes, once will-execute observers have been told and nothing holds the execute.
    private func executeAnnounced(_ observers: [any ProcedureObserver]) {
        if isCancelled, !isAutomaticFinishingDisabled {
            // Cancelled by a will-execute observer, or while held: do not start the work.
            finish()
            return
        }
        execute()
        for observer in observers { observer.did(execute: self) }
    }

    private func handleDidCancel(_ error: (any Error)?) {
        procedureDidCancel(with: error)
        for observer in observers { observer.did(cancel: self, with: error) }
    }

    private func handleFinish(_ requestedError: (any Error)?) {
        var error: (any Error)?
        var queue: ProcedureQueue?
        let begins = protected.withLock { protected -> Bool in
            guard protected.state == .executing || protected.state == .pending else { return false }
            protected.transition(to: .finishing)
            protected.error = protected.cancelError ?? requestedError
            protected.heldEvent = HeldEvent(.finish)
            (error, queue) = (protected.error, protected.queue)
            return true
        }
        guard begins else { return }

        procedureWillFinish(with: error)
        protected.withLock { $0.parentWillFinish }?(self, error)
        var pendingFinish = announceFinish(with: error)
        queue?.procedureWillFinish(self, with: error)
        finishAnnounced(error, handedOut: &pendingFinish)
    }

    /// Tells will-finish observers, with a token for the finish if there are any; returns the
    /// token.
    private func announceFinish(with error: (any Error)?) -> PendingEvent? {
        let observers = observers
        guard !observers.isEmpty else { return nil }
        let pendingFinish = PendingEvent(.finish, of: self, isCounted: false)
        for observer in observers {
            observer.will(finish: self, with: error, pendingFinish: pendingFinish)
        }
        return pendingFinish
    }

    private typealias Finished = (
        observers: [any ProcedureObserver], waiters: [any DependencyWaiter],
        queue: ProcedureQueue?, member: Int, releasesSlot: Bool, isExclusive: Bool
    )

    /// Finishes, once the finish has been announced and nothing holds it; returns at once,
    /// leaving it to the event loop, while it is held.
    ///
    /// - Parameter handedOut: the token the will-finish observers were given, if any.
    private func finishAnnounced(_ error: (any Error)?, handedOut token: inout PendingEvent?) {
        let finished = protected.withLock { protected -> Finished? in
            if protected.heldEvent != nil,
                !Self.announcementDidEnd(&protected, handedOut: &token)
            {
                return nil
            }
            protected.transition(to: .finished)
            defer {
                protected.observers = []
                protected.parentWillFinish = nil
                protected.waiters = []
                protected.queue = nil
            }
            return (
                observers: protected.observers, waiters: protected.waiters,
                queue: protected.queue, member: protected.queueMember,
                releasesSlot: protected.holdsQueueSlot,
                isExclusive: !protected.exclusivityCategories.isEmpty
            )
        }
        guard let finished else { return }
        procedureDidFinish(with: error)
        for observer in finished.observers { observer.did(finish: self, with: error) }
        // Foundation's own bookkeeping: plain operations that depend on this one, the
        // completion block and waitUntilFinished().
        didChangeValue(forKey: "isFinished")
        if finished.isExclusive { ExclusivityManager.shared.release(self) }
        for waiter in finished.waiters { waiter.dependencyDidFinish() }
        finished.queue?.operationDidFinish(
            self, member: finished.member, releasingSlot: finished.releasesSlot)
        settle()
    }

    /// Marks the procedure settled and wakes the threads in ``waitUntilFinished()``.
    private func settle() {
        let sleepers = protected.withLock { protected in
            protected.isSettled = true
            defer { protected.settleWaiters = [] }
            return protected.settleWaiters
        }
        for sleeper in sleepers { sleeper.signal() }
    }

    /// Waits until the procedure has finished and its did-finish observers have run —
    /// unlike `isFinished`, which turns true before they run.
    open override func waitUntilFinished() {
        let sleeper = protected.withLock { protected -> DispatchSemaphore? in
            guard !protected.isSettled else { return nil }
            let sleeper = DispatchSemaphore(value: 0)
            protected.settleWaiters.append(sleeper)
            return sleeper
        }
        sleeper?.wait()
    }

    // MARK: - Scheduling (driven by ProcedureQueue)

    /// What became of a procedure just added to a queue.
    enum EnqueueOutcome {
        /// Ready to start now: the queue puts it in its ready list.
        case ready
        /// Waiting for something, or finishing: the procedure reports back by itself.
        case waiting
    }

    /// Moves the procedure into `queue`, where its entry among the members is at `member`, and
    /// starts waiting for what it needs.
    final func enqueue(on queue: ProcedureQueue, member: Int) -> EnqueueOutcome {
        let snapshot = protected.withLock { protected in
            precondition(
                protected.state == .initialized,
                "\(protected.name ?? String(describing: type(of: self))) was added to a queue twice."
            )
            protected.transition(to: .pending)
            protected.queue = queue
            protected.queueMember = member
            if protected.isCancelled {
                // One that finishes itself executes at once; the others finish at once.
                if isAutomaticFinishingDisabled {
                    protected.phase = .ready
                } else {
                    protected.isFinishRequested = true
                }
            }
            // Counted here, so that a dependency added once the procedure is pending is either
            // counted too or comes too late to be waited for; one extra count guards against
            // reaching zero before every wait is registered.
            if !protected.isCancelled, !protected.dependencies.isEmpty {
                unresolvedDependencies.store(
                    protected.dependencies.count + 1, ordering: .releasing)
            }
            return (
                isCancelled: protected.isCancelled, cancelError: protected.cancelError,
                dependencies: protected.dependencies
            )
        }
        if snapshot.isCancelled {
            if isAutomaticFinishingDisabled { return .ready }
            post(.finish(snapshot.cancelError))
            return .waiting
        }
        if snapshot.dependencies.isEmpty {
            return dependenciesDidFinish(markReady: false) ? .ready : .waiting
        }
        for operation in snapshot.dependencies { wait(for: operation) }
        resolveOneDependency()
        return .waiting
    }

    /// Registers to hear when `operation` finishes, counting it down when it does.
    private func wait(for operation: Operation) {
        if let procedure = operation as? Procedure {
            if !procedure.addWaiter(self) { resolveOneDependency() }
        } else {
            OperationFinishWatcher.watch(operation) { [self] in resolveOneDependency() }
        }
    }

    /// Adds `waiter` to be told when this procedure finishes; false if it already has.
    final func addWaiter(_ waiter: any DependencyWaiter) -> Bool {
        protected.withLock { protected in
            guard protected.state != .finished else { return false }
            protected.waiters.append(waiter)
            return true
        }
    }

    private func resolveOneDependency() {
        if unresolvedDependencies.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            _ = dependenciesDidFinish(markReady: true)
        }
    }

    /// Moves on once every dependency has finished: to the conditions, if there are any.
    ///
    /// - Parameter markReady: whether to hand the procedure to its queue when nothing else is
    ///   left to wait for; `false` lets `enqueue(on:)` hand over a batch at once.
    /// - Returns: whether the procedure is ready and was not handed over.
    private func dependenciesDidFinish(markReady: Bool) -> Bool {
        let next = protected.withLock { protected -> (ProcedureQueue, [Condition])? in
            guard protected.state == .pending, !protected.isCancelled, let queue = protected.queue,
                protected.phase == .waitingForDependencies
            else { return nil }
            protected.phase = .evaluatingConditions
            return (queue, protected.conditions)
        }
        guard let (queue, conditions) = next else { return false }
        guard !conditions.isEmpty else {
            return requestExclusivity(markReady: markReady, conditions: [])
        }
        queue.evaluateUnlessSuspended { [self] in
            post(.work { [self] in evaluate(conditions, producingOn: queue) })
        }
        return false
    }

    /// Evaluates `conditions`, producing their dependencies on `queue`, unless the procedure
    /// has been cancelled.
    private func evaluate(_ conditions: [Condition], producingOn queue: ProcedureQueue) {
        let evaluation = ConditionEvaluation(
            .all, count: conditions.count, procedure: self, queue: queue
        ) { [self] result in
            conditionsDidEvaluate(result, conditions: conditions)
        }
        let begun = protected.withLock { protected -> Bool in
            guard !protected.isCancelled else { return false }
            protected.conditionEvaluation = evaluation
            return true
        }
        if begun { evaluation.start(conditions) }
    }

    private func conditionsDidEvaluate(_ result: ConditionResult, conditions: [Condition]) {
        protected.withLock { $0.conditionEvaluation = nil }
        switch result {
        case .failure(let error):
            // The condition's error as it is, as in the original.
            cancel(with: error)
        case .success(false):
            // Every condition answered false ("ignored"): skipped, without an error.
            cancel()
        case .success(true):
            _ = requestExclusivity(markReady: true, conditions: conditions)
        }
    }

    private func requestExclusivity(markReady: Bool, conditions: [Condition]) -> Bool {
        var limits: [String: (limit: Int, weight: Int)] = [:]
        for condition in conditions {
            for category in condition.mutuallyExclusiveCategories {
                limits[category] = (condition.limit(of: category), condition.weight(of: category))
            }
        }
        guard !limits.isEmpty else { return becomeReady(markReady: markReady) }
        let sorted = limits.keys.sorted()
        let proceed = protected.withLock { protected -> Bool in
            guard protected.state == .pending, !protected.isCancelled else { return false }
            protected.phase = .waitingForExclusivity
            protected.exclusivityCategories = sorted
            return true
        }
        guard proceed else { return false }
        let claims = sorted.map { ($0, limits[$0]!.limit, limits[$0]!.weight) }
        if ExclusivityManager.shared.request(self, categories: claims) {
            return exclusivityGranted(markReady: markReady)
        }
        return false
    }

    /// Called when every mutual-exclusion category the procedure asked for is its own.
    @discardableResult
    final func exclusivityGranted(markReady: Bool = true) -> Bool {
        let ready = becomeReady(markReady: markReady)
        // Cancelled while waiting: the categories go straight to the next in line.
        if protected.withLock({ $0.isCancelled || $0.state >= .finishing }) {
            ExclusivityManager.shared.release(self)
        }
        return ready
    }

    private func becomeReady(markReady: Bool) -> Bool {
        let queue = protected.withLock { protected -> ProcedureQueue? in
            guard protected.state == .pending, !protected.isCancelled else { return nil }
            protected.phase = .ready
            return protected.queue
        }
        guard let queue else { return false }
        guard markReady else { return true }
        queue.enqueueReady(.procedure(self))
        return false
    }

    /// Called by `queue` once it has given this procedure one of its slots.
    final func start(from queue: ProcedureQueue) {
        post(.start(queue))
    }
}

extension Procedure: DependencyWaiter {
    func dependencyDidFinish() {
        resolveOneDependency()
    }
}

/// Something that waits for a procedure to finish.
protocol DependencyWaiter: AnyObject, Sendable {
    /// Called once, after the procedure has finished.
    func dependencyDidFinish()
}

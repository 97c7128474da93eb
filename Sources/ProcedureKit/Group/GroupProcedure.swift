import Foundation

/// A procedure made of other operations, its children, run on a queue of its own.
///
/// The group starts its children when it executes and finishes when its last child does,
/// counting children added while it runs: with ``addChild(_:)``, from an override of
/// ``child(_:willFinishWithError:)``, or produced by a child. Children may be procedures or
/// plain Foundation operations.
///
/// The group's will-add and did-add observers hear about every child: those it was created
/// with as it starts them, and those added later as they are added.
///
/// The first error a child finishes with (after ``transformChildErrorBlock``) becomes the
/// group's error. Cancelling the group cancels every child, procedures with
/// `ProcedureKitError.parent(cancelledWithError:)`, and the group finishes once they all have.
/// Children added to a cancelled group are cancelled. A group cancelled before it starts
/// finishes at once, and its children, cancelled, are handed to its queue so that they finish
/// too.
///
/// Subclasses that override `execute()` must call `super.execute()`.
open class GroupProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: the group's own mutable state lives in `groupState`, a `Locked` mutex.

    struct GroupState {
        var children: [Operation] = []
        /// Children added and not finished, plus child callbacks not yet run.
        var unfinished = 0
        var hasStarted = false
        /// Cancelled before it started: its children went to the queue to finish, cancelled.
        var isDrained = false
        var isSuspended = false
        var childError: (any Error)?
        var transformChildErrorBlock: (@Sendable (Procedure, inout (any Error)?) -> Void)?
        /// The queue the children run on, once made (see ``childQueue``).
        var queue: ProcedureQueue?
        var maxConcurrentOperationCount = OperationQueue.defaultMaxConcurrentOperationCount
    }

    let groupState = Locked(GroupState())

    /// The queue the children run on; suspended until the group executes.
    ///
    /// Made when first needed, and let go of once the group has finished: a graph of many
    /// thousands of groups made before they run holds a queue only for those running, and a
    /// group that finds nothing to run never makes one.
    var childQueue: ProcedureQueue {
        groupState.withLock { group in
            if let queue = group.queue { return queue }
            // Nothing else can reach the new queue yet: made under the group's lock.
            let queue = ProcedureQueue(
                maxConcurrentOperationCount: group.maxConcurrentOperationCount)
            queue.isSuspended = true
            queue.owner = self
            group.queue = queue
            return queue
        }
    }

    /// Creates a group of `operations`.
    public init(operations: [Operation]) {
        super.init()
        groupState.withLock { $0.children = operations }
    }

    /// Creates a group of `operations`.
    public convenience init(operations: Operation...) {
        self.init(operations: operations)
    }

    deinit {
        Procedure.releaseIteratively(takeChildren())
    }

    override func takeOwnedOperations() -> [Operation] {
        takeDependencies() + takeChildren()
    }

    private func takeChildren() -> [Operation] {
        groupState.withLock { group in
            defer { group.children = [] }
            return group.children
        }
    }

    // MARK: - Configuration

    /// The group's children, including those added while it runs.
    public var children: [Operation] {
        groupState.withLock { $0.children }
    }

    /// How many children may execute at once; zero or less sets no limit.
    public var maxConcurrentOperationCount: Int {
        get { groupState.withLock { $0.maxConcurrentOperationCount } }
        set {
            let queue = groupState.withLock { group in
                group.maxConcurrentOperationCount = newValue
                return group.queue
            }
            queue?.maxConcurrentOperationCount = newValue
        }
    }

    /// Whether the group holds back children that are ready to start.
    public var isSuspended: Bool {
        get { groupState.withLock { $0.isSuspended } }
        set {
            let (hasStarted, queue) = groupState.withLock { group in
                group.isSuspended = newValue
                return (group.hasStarted, group.queue)
            }
            // A queue not made yet is made suspended, and the group's start sets it.
            queue?.isSuspended = newValue || !hasStarted
        }
    }

    /// Maps each child's error before the group records it; set the error to `nil` to ignore
    /// it. Called with `nil` errors too.
    public var transformChildErrorBlock: (@Sendable (Procedure, inout (any Error)?) -> Void)? {
        get { groupState.withLock { $0.transformChildErrorBlock } }
        set { groupState.withLock { $0.transformChildErrorBlock = newValue } }
    }

    // MARK: - Children

    /// Adds `child`; if the group is running, it is scheduled at once.
    public final func addChild(_ child: Operation) {
        addChildren([child])
    }

    /// Adds `children`; if the group is running, they are scheduled at once.
    ///
    /// Will-add and did-add observers of the group hear about them when they are scheduled.
    /// Children added to a cancelled group are cancelled.
    ///
    /// - Precondition: the group has not finished after starting.
    public final func addChildren(_ children: [Operation]) {
        guard take(children) else { return }
        post(.work { [self] in announceAndAdd(children) })
    }

    /// Adds `child` before `event` happens; if the group is running, it is scheduled at once.
    ///
    /// `event` is a token a will-execute or will-finish observer was given (of any procedure,
    /// this group or another): the event waits until the child is in the group, its will-add
    /// and did-add observers told, however long after the event was announced this is called.
    ///
    /// - Parameters:
    ///   - child: the operation to add.
    ///   - event: what must not happen before the child is added.
    /// - Precondition: the group has not finished after starting.
    public final func addChild(_ child: Operation, before event: PendingEvent) {
        addChildren([child], before: event)
    }

    /// Adds `children` before `event` happens, as ``addChild(_:before:)`` adds one.
    ///
    /// - Parameters:
    ///   - children: the operations to add.
    ///   - event: what must not happen before the children are added.
    /// - Precondition: the group has not finished after starting.
    public final func addChildren(_ children: [Operation], before event: PendingEvent) {
        guard take(children) else { return }
        runInTurn({ [self] in announceAndAdd(children) }, before: event)
    }

    /// Counts `children` as the group's; true if the group is running and they remain to be
    /// announced and added to the child queue.
    private func take(_ children: [Operation]) -> Bool {
        guard !children.isEmpty else { return false }
        let (hasStarted, isDrained) = groupState.withLock { group in
            group.children.append(contentsOf: children)
            if group.hasStarted { group.unfinished += children.count }
            return (group.hasStarted, group.isDrained)
        }
        guard hasStarted else {
            if isCancelled { cancelChildren(children) }
            if isDrained { childQueue.add(children, fromOwner: true) }
            return false
        }
        precondition(!isFinished, "Children cannot be added to a group that has finished.")
        prepare(children)
        return true
    }

    /// Adds `children` to the child queue, with the group's will-add and did-add observers
    /// around; runs in turn with the group's callbacks.
    private func announceAndAdd(_ children: [Operation]) {
        let observers = observers
        for child in children {
            for observer in observers { observer.procedure(self, willAdd: child) }
        }
        childQueue.add(children, fromOwner: true)
        for child in children {
            for observer in observers { observer.procedure(self, didAdd: child) }
        }
    }

    /// Adds `child`.
    public final func add(child: Operation) {
        addChild(child)
    }

    /// Adds each of `children`.
    public final func add<S: Sequence<Operation>>(children: S) {
        addChildren(Array(children))
    }

    /// Adds each of `children`.
    public final func add(children: Operation...) {
        addChildren(children)
    }

    /// Called as each child procedure is about to finish, with its error if any.
    ///
    /// The override point for groups that decide what to run next: call `super`, return if
    /// the group is cancelled, then add children. The group does not finish before this
    /// returns, so children added here are counted. `error` has been through
    /// ``transformChildErrorBlock`` already; an error a child got from the group's own
    /// cancellation arrives as `nil`. The default records the first error.
    open func child(_ child: Procedure, willFinishWithError error: (any Error)?) {
        guard let error else { return }
        groupState.withLock { group in
            if group.childError == nil { group.childError = error }
        }
    }

    /// Lets go of the children that have finished; ``children`` holds only the others
    /// afterwards.
    ///
    /// For a group kept long after its end whose children nothing needs any more, such as one
    /// step of a graph of many thousands: a finished group otherwise keeps every child, and
    /// what each keeps, until it is itself released. The group's outcome does not change.
    public final func releaseFinishedChildren() {
        // Asked outside the group's lock: a child's `isFinished` takes the child's own.
        let finished = Set(children.lazy.filter(\.isFinished).map(ObjectIdentifier.init))
        guard !finished.isEmpty else { return }
        let released = groupState.withLock { group -> [Operation] in
            var released: [Operation] = []
            released.reserveCapacity(finished.count)
            group.children.removeAll { child in
                guard finished.contains(ObjectIdentifier(child)) else { return false }
                released.append(child)
                return true
            }
            return released
        }
        Procedure.releaseIteratively(released)
    }

    // MARK: - Running

    open override func execute() {
        let (children, isSuspended) = groupState.withLock { group in
            group.hasStarted = true
            group.unfinished += group.children.count
            return (group.children, group.isSuspended)
        }
        guard !children.isEmpty else { return finish() }
        prepare(children)
        announceAndAdd(children)
        childQueue.isSuspended = isSuspended
    }

    open override func procedureDidFinish(with error: (any Error)?) {
        // Every child has finished, and none can be added: the queue is let go of, outside the
        // lock. (A group cancelled before it started keeps it: its children may still be
        // finishing there.)
        let queue = groupState.withLock { group -> ProcedureQueue? in
            guard group.hasStarted else { return nil }
            defer { group.queue = nil }
            return group.queue
        }
        withExtendedLifetime(queue) { super.procedureDidFinish(with: error) }
    }

    open override func procedureDidCancel(with error: (any Error)?) {
        cancelChildren(children)
        // A group that will never execute hands its children to its queue, so they finish.
        guard !isAutomaticFinishingDisabled else { return }
        let unstarted = groupState.withLock { group -> [Operation]? in
            guard !group.hasStarted, !group.isDrained else { return nil }
            group.isDrained = true
            return group.children
        }
        guard let unstarted else { return }
        childQueue.add(unstarted, fromOwner: true)
        childQueue.isSuspended = false
    }

    /// Cancels `children` as children of this cancelled group.
    private func cancelChildren(_ children: [Operation]) {
        let cancelError = protected.withLock { $0.cancelError }
        let reason = ProcedureKitError.parent(cancelledWithError: cancelError)
        for child in children {
            if let procedure = child as? Procedure {
                procedure.cancel(with: reason)
            } else {
                child.cancel()
            }
        }
    }

    /// Gets new children ready to run: hears when child procedures are about to finish, and
    /// cancels children added to a cancelled group.
    private func prepare(_ children: [Operation]) {
        let willFinish: @Sendable (Procedure, (any Error)?) -> Void = { [weak self] child, error in
            self?.childWillFinish(child, error: error)
        }
        for case let procedure as Procedure in children {
            procedure.protected.withLock { $0.parentWillFinish = willFinish }
        }
        if isCancelled { cancelChildren(children) }
    }

    /// Runs ``child(_:willFinishWithError:)`` in turn with the group's other callbacks. Counted
    /// as unfinished work until it has run, so that the children it adds keep the group alive.
    private func childWillFinish(_ child: Procedure, error: (any Error)?) {
        groupState.withLock { $0.unfinished += 1 }
        post(
            .work { [self] in
                self.child(child, willFinishWithError: transformed(error, of: child))
                finishedOneUnit()
            })
    }

    /// `error` as ``child(_:willFinishWithError:)`` sees it: through the transform block, and
    /// `nil` if it is the group's own cancellation.
    private func transformed(_ error: (any Error)?, of child: Procedure) -> (any Error)? {
        var error = error
        if let reason = error as? ProcedureKitError, reason.context == .parentCancelledWithError {
            error = nil
        }
        let transform = groupState.withLock { $0.transformChildErrorBlock }
        transform?(child, &error)
        return error
    }

    /// Called by the child queue once a child has finished.
    final func childDidFinish(_ operation: Operation) {
        finishedOneUnit()
    }

    /// Called by the child queue before it adds operations the group did not add itself, such
    /// as those a child produces: they become children.
    final func queueWillAdd(_ operations: [Operation]) {
        groupState.withLock { group in
            group.children.append(contentsOf: operations)
            group.unfinished += operations.count
        }
        prepare(operations)
    }

    /// Keeps a running group from finishing until ``releaseHold()``, for work that may add
    /// children from outside the group's callbacks; false, holding nothing, if the group is not
    /// running (it has not started, or every child has finished).
    final func holdOpen() -> Bool {
        groupState.withLock { group in
            guard group.hasStarted, group.unfinished > 0 else { return false }
            group.unfinished += 1
            return true
        }
    }

    /// Ends a hold taken with ``holdOpen()``: the group finishes if nothing else is left.
    final func releaseHold() {
        finishedOneUnit()
    }

    private func finishedOneUnit() {
        let done = groupState.withLock { group -> (any Error)?? in
            guard group.hasStarted else { return nil }
            group.unfinished -= 1
            guard group.unfinished == 0 else { return nil }
            return .some(group.childError)
        }
        if case .some(let error) = done { finish(with: error) }
    }
}

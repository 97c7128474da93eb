import Foundation

/// A procedure made of other operations, its children, run on a queue of its own.
///
/// The group starts its children when it executes and finishes when its last child does,
/// counting children added while it runs: with ``addChild(_:)``, from an override of
/// ``child(_:willFinishWithError:)``, or produced by a child. Children may be procedures or
/// plain Foundation operations.
///
/// The first error a child finishes with (after ``transformChildErrorBlock``) becomes the
/// group's error. Cancelling the group cancels every child, procedures with
/// `ProcedureKitError.parent(cancelledWithError:)`, and the group finishes once they all have.
///
/// Subclasses that override `execute()` must call `super.execute()`.
open class GroupProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: the group's own mutable state lives in `groupState`, a `Locked` mutex.

    struct GroupState {
        var children: [Operation] = []
        /// Children added and not finished, plus child callbacks not yet run.
        var unfinished = 0
        var hasStarted = false
        var isSuspended = false
        var childError: (any Error)?
        var transformChildErrorBlock: (@Sendable (Procedure, inout (any Error)?) -> Void)?
    }

    let groupState = Locked(GroupState())

    /// The queue the children run on; suspended until the group executes.
    let childQueue: ProcedureQueue

    /// Creates a group of `operations`.
    public init(operations: [Operation]) {
        childQueue = ProcedureQueue()
        childQueue.isSuspended = true
        super.init()
        childQueue.owner = self
        childQueue.name = "\(type(of: self)).children"
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
        get { childQueue.maxConcurrentOperationCount }
        set { childQueue.maxConcurrentOperationCount = newValue }
    }

    /// Whether the group holds back children that are ready to start.
    public var isSuspended: Bool {
        get { groupState.withLock { $0.isSuspended } }
        set {
            let hasStarted = groupState.withLock { group in
                group.isSuspended = newValue
                return group.hasStarted
            }
            childQueue.isSuspended = newValue || !hasStarted
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
    /// Will-add and did-add observers of the group hear about children added while it runs.
    ///
    /// - Precondition: the group has not finished.
    public final func addChildren(_ children: [Operation]) {
        guard !children.isEmpty else { return }
        let hasStarted = groupState.withLock { group in
            group.children.append(contentsOf: children)
            if group.hasStarted { group.unfinished += children.count }
            return group.hasStarted
        }
        guard hasStarted else { return }
        precondition(!isFinished, "Children cannot be added to a group that has finished.")
        prepare(children)
        post(
            .work { [self] in
                let observers = observers
                for child in children {
                    for observer in observers { observer.procedure(self, willAdd: child) }
                }
                childQueue.add(children, fromOwner: true)
                for child in children {
                    for observer in observers { observer.procedure(self, didAdd: child) }
                }
            })
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
    /// returns, so children added here are counted. The default records the first error,
    /// after ``transformChildErrorBlock``; errors children got from the group's own
    /// cancellation are not recorded.
    open func child(_ child: Procedure, willFinishWithError error: (any Error)?) {
        var error = error
        if let reason = error as? ProcedureKitError, reason.context == .parentCancelledWithError {
            error = nil
        }
        let transform = groupState.withLock { $0.transformChildErrorBlock }
        transform?(child, &error)
        guard let error else { return }
        groupState.withLock { group in
            if group.childError == nil { group.childError = error }
        }
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
        childQueue.add(children, fromOwner: true)
        childQueue.isSuspended = isSuspended
    }

    open override func procedureDidCancel(with error: (any Error)?) {
        for child in children {
            if let procedure = child as? Procedure {
                procedure.cancel(with: ProcedureKitError.parent(cancelledWithError: error))
            } else {
                child.cancel()
            }
        }
    }

    /// Gets new children ready to run: hears when child procedures are about to finish, and
    /// cancels children added to a cancelled group.
    private func prepare(_ children: [Operation]) {
        let isCancelled = isCancelled
        let cancelError = protected.withLock { $0.cancelError }
        for child in children {
            guard let procedure = child as? Procedure else {
                if isCancelled { child.cancel() }
                continue
            }
            procedure.protected.withLock {
                $0.parentWillFinish = { [weak self] procedure, error in
                    self?.childWillFinish(procedure, error: error)
                }
            }
            if isCancelled {
                procedure.cancel(with: ProcedureKitError.parent(cancelledWithError: cancelError))
            }
        }
    }

    /// Runs ``child(_:willFinishWithError:)`` in turn with the group's other callbacks. Counted
    /// as unfinished work until it has run, so that the children it adds keep the group alive.
    private func childWillFinish(_ child: Procedure, error: (any Error)?) {
        groupState.withLock { $0.unfinished += 1 }
        post(
            .work { [self] in
                self.child(child, willFinishWithError: error)
                finishedOneUnit()
            })
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

    private func finishedOneUnit() {
        let done = groupState.withLock { group -> (any Error)?? in
            group.unfinished -= 1
            guard group.hasStarted, group.unfinished == 0 else { return nil }
            return .some(group.childError)
        }
        if case .some(let error) = done { finish(with: error) }
    }
}

import Foundation

/// Runs a procedure again and again, as a new instance each time the last one finishes, up to
/// a limit, waiting between them.
///
/// The procedures come from an iterator of payloads (``RepeatProcedurePayload``: the procedure,
/// the delay before it, a configure block), which every initialiser makes: from a body, from an
/// iterator of procedures with a ``WaitStrategy`` or an iterator of ``Delay``s, or given
/// directly. Each procedure is a child of the repeat, taken from the iterator when the one
/// before it finishes (the first when the repeat is made); the repeat ends when the iterator
/// does, when it has made `max` procedures, or when it is cancelled, and finishes once the last
/// procedure has. As in any group, the first error a procedure finishes with becomes the
/// repeat's error (a failure does not stop the repeat: see ``RetryProcedure`` for that).
/// Observers of the repeat hear every procedure as a will-add event.
///
/// Each procedure, the first included, goes through the repeat's configure block before it is
/// added (see ``append(configureBlock:)``). When `T` takes an input or gives an output, so does
/// the repeat: its input is given to every procedure, and its output is the current one's.
open class RepeatProcedure<T: Procedure>: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: the repeat's mutable state lives in `repeatState`, a `Locked` mutex.
    // Its payload iterator, not Sendable, is advanced outside the mutex only by the caller that
    // set `isAdvancing`, so by one thread at a time, each seeing what the one before did.

    /// What each procedure is made of: the procedure, its delay and its configure block.
    public typealias Payload = RepeatProcedurePayload<T>

    /// How long to wait before each procedure after the first; see ``ProcedureKit/WaitStrategy``.
    public typealias WaitStrategy = ProcedureKit.WaitStrategy

    struct RepeatState {
        /// The payloads after the first, cut to the limit.
        let payloads: AnyIterator<Payload>
        var count = 1
        var previous: T?
        var current: T
        var configure: Payload.ConfigureBlock
        /// A caller is taking and adding the next payload.
        var isAdvancing = false
    }

    /// The most procedures made, the first included; `nil` for no limit.
    public let maxCount: Int?

    let repeatState: Locked<RepeatState>

    // MARK: - Creating

    /// Creates a repeat of the payloads `iterator` gives, at most `max` of them.
    ///
    /// The first payload's delay is not waited for: the first procedure starts with the
    /// repeat. Its configure block, as every payload's, replaces the repeat's.
    ///
    /// - Parameters:
    ///   - max: how many procedures to make at most, the first included; `nil` for no limit.
    ///   - iterator: gives the payloads; it must give the first at once.
    public init<PayloadIterator: IteratorProtocol>(max: Int? = nil, iterator: PayloadIterator)
    where PayloadIterator.Element == Payload {
        maxCount = max
        repeatState = RepeatProcedure.start(max: max, payloads: iterator)
        super.init(operations: [repeatState.withLock { $0.current }])
        nameAfterFirst()
    }

    /// Creates a repeat of the payloads `iterator` gives, at most `max` of them, as the
    /// initialiser taking any iterator of payloads does; this one lets Swift infer `T` from
    /// the payloads (`RepeatProcedure(iterator: AnyIterator { … })`), which it cannot through
    /// a generic iterator's element type.
    ///
    /// - Parameters:
    ///   - max: how many procedures to make at most, the first included; `nil` for no limit.
    ///   - iterator: gives the payloads; it must give the first at once.
    public init(max: Int? = nil, iterator: AnyIterator<Payload>) {
        maxCount = max
        repeatState = RepeatProcedure.start(max: max, payloads: iterator)
        super.init(operations: [repeatState.withLock { $0.current }])
        nameAfterFirst()
    }

    /// Creates a repeat of the procedures `iterator` gives, each after the first waiting for
    /// the next delay of `delay`.
    ///
    /// - Parameters:
    ///   - max: how many procedures to make at most, the first included; `nil` for no limit.
    ///   - delay: the delay before the second procedure, then the third, and so on; no delay
    ///     once it runs out.
    ///   - iterator: gives the procedures; it must give the first at once.
    public init<OperationIterator: IteratorProtocol, DelayIterator: IteratorProtocol>(
        max: Int? = nil, delay: DelayIterator, iterator: OperationIterator
    ) where OperationIterator.Element == T, DelayIterator.Element == Delay {
        maxCount = max
        repeatState = RepeatProcedure.start(
            max: max, payloads: RepeatProcedure.payloads(iterator, delays: delay))
        super.init(operations: [repeatState.withLock { $0.current }])
        nameAfterFirst()
    }

    /// Creates a repeat of the procedures `iterator` gives, waiting between them.
    ///
    /// - Parameters:
    ///   - max: how many procedures to make at most, the first included; `nil` for no limit.
    ///   - wait: how long to wait between procedures.
    ///   - iterator: gives the procedures; it must give the first at once.
    public init<OperationIterator: IteratorProtocol>(
        max: Int? = nil, wait: WaitStrategy = .immediate, iterator: OperationIterator
    ) where OperationIterator.Element == T {
        maxCount = max
        repeatState = RepeatProcedure.start(
            max: max, payloads: RepeatProcedure.payloads(iterator, waiting: wait))
        super.init(operations: [repeatState.withLock { $0.current }])
        nameAfterFirst()
    }

    /// Creates a repeat of the procedures `body` makes: `RepeatProcedure { MyProcedure() }`.
    ///
    /// - Parameters:
    ///   - max: how many procedures to make at most, the first included; `nil` for no limit.
    ///   - wait: how long to wait between procedures.
    ///   - body: makes the next procedure, or returns `nil` to stop; it must make the first.
    public init(
        max: Int? = nil, wait: WaitStrategy = .immediate,
        body: @escaping @Sendable () -> T?
    ) {
        maxCount = max
        repeatState = RepeatProcedure.start(
            max: max, payloads: RepeatProcedure.payloads(AnyIterator(body), waiting: wait))
        super.init(operations: [repeatState.withLock { $0.current }])
        nameAfterFirst()
    }

    /// Creates a repeat of the procedures `body` makes from their number:
    /// `RepeatProcedure { n in MyProcedure(n) }`.
    ///
    /// - Parameters:
    ///   - max: how many procedures to make at most, the first included; `nil` for no limit.
    ///   - wait: how long to wait between procedures.
    ///   - body: makes procedure number `n` (from 1), or returns `nil` to stop; it must make
    ///     the first.
    public init(
        max: Int? = nil, wait: WaitStrategy = .immediate,
        body: @escaping @Sendable (_ n: Int) -> T?
    ) {
        maxCount = max
        let numbered = CountingIterator { body($0 + 1) }
        repeatState = RepeatProcedure.start(
            max: max, payloads: RepeatProcedure.payloads(numbered, waiting: wait))
        super.init(operations: [repeatState.withLock { $0.current }])
        nameAfterFirst()
    }

    /// The state of a repeat of `payloads`: the first taken, the rest cut to `max` in all.
    private static func start<Payloads: IteratorProtocol>(
        max: Int?, payloads: Payloads
    ) -> Locked<RepeatState> where Payloads.Element == Payload {
        if let max {
            precondition(max >= 1, "A repeat makes at least one procedure; max is \(max).")
        }
        var payloads = payloads
        guard let first = payloads.next() else {
            preconditionFailure("The iterator or body of a repeat must make its first procedure.")
        }
        let rest = max.map { AnyIterator(FiniteIterator(payloads, limit: $0 - 1)) }
        return Locked(
            RepeatState(
                payloads: rest ?? AnyIterator(payloads), current: first.operation,
                configure: first.configure ?? { _ in }))
    }

    /// The payloads of `operations`, each after the first with the next of `delays`.
    private static func payloads<Operations: IteratorProtocol, Delays: IteratorProtocol>(
        _ operations: Operations, delays: Delays
    ) -> AnyIterator<Payload> where Operations.Element == T, Delays.Element == Delay {
        var operations = operations
        var first = operations.next().map { Payload(operation: $0) }
        var rest = MapIterator(PairIterator(primary: operations, secondary: delays)) {
            Payload(operation: $0.0, delay: $0.1)
        }
        return AnyIterator { first.take() ?? rest.next() }
    }

    /// The payloads of `operations`, each after the first waiting as `wait` says.
    private static func payloads<Operations: IteratorProtocol>(
        _ operations: Operations, waiting wait: WaitStrategy
    ) -> AnyIterator<Payload> where Operations.Element == T {
        payloads(operations, delays: Delay.iterator(wait.iterator))
    }

    private func nameAfterFirst() {
        name = "\(Self.kind)<\(current.name ?? String(describing: T.self))>"
    }

    /// The name of the kind of group, for the repeat's name.
    class var kind: String { "Repeat" }

    // MARK: - State

    /// How many procedures have been made so far, the current one included.
    public var count: Int {
        repeatState.withLock { $0.count }
    }

    /// The current procedure: the last one made.
    public var current: T {
        repeatState.withLock { $0.current }
    }

    /// The procedure made before the current one; `nil` while the first is current.
    public var previous: T? {
        repeatState.withLock { $0.previous }
    }

    /// The block every procedure goes through before it is added.
    var configure: Payload.ConfigureBlock {
        repeatState.withLock { $0.configure }
    }

    // MARK: - Configuring

    /// Adds `block` to the end of the configure block, which prepares every procedure, the
    /// first included, before the repeat adds it; blocks run in the order they were appended.
    ///
    /// - Parameter block: prepares a procedure.
    public final func append(configureBlock block: @escaping Payload.ConfigureBlock) {
        repeatState.withLock { state in
            let configure = state.configure
            state.configure = { procedure in
                configure(procedure)
                block(procedure)
            }
        }
    }

    /// Replaces the configure block, those appended and the input given to the repeat
    /// included, as a payload's configure block does.
    ///
    /// - Parameter block: prepares each procedure the repeat adds from now on.
    public final func replace(configureBlock block: @escaping Payload.ConfigureBlock) {
        repeatState.withLock { $0.configure = block }
    }

    // MARK: - Running

    /// Configures the first procedure, then runs it. Subclasses that override it must call
    /// `super.execute()`.
    open override func execute() {
        let (first, configure) = repeatState.withLock { ($0.current, $0.configure) }
        configure(first)
        super.execute()
    }

    /// Whether to go on after the current procedure finished with `error`.
    func repeats(afterError error: (any Error)?) -> Bool { true }

    /// Whether the error of a procedure that another follows becomes the group's.
    var recordsErrorsOfRepeatedProcedures: Bool { true }

    /// Adds the next procedure when the current one is about to finish, then records its error
    /// as a group does. Subclasses that override it decide with ``addNextOperation(_:)``.
    open override func child(_ child: Procedure, willFinishWithError error: (any Error)?) {
        let repeated = child === current && addNextOperation(repeats(afterError: error))
        guard !repeated || recordsErrorsOfRepeatedProcedures else { return }
        super.child(child, willFinishWithError: error)
    }

    /// Takes the next payload, configures its procedure and adds it, after its delay, as the
    /// current procedure.
    ///
    /// The repeat calls it as its current procedure is about to finish; a subclass may call it
    /// from an override of ``child(_:willFinishWithError:)`` (then the current procedure is
    /// the new one, and the repeat adds no other for the one finishing), or while the repeat
    /// runs. Where the original returns a future of the answer, this answers at once.
    ///
    /// - Parameter shouldAddNext: asked, unless the repeat is cancelled, before a payload is
    ///   taken; false adds nothing.
    /// - Returns: whether a procedure was added: false if the repeat is not running (not
    ///   started, cancelled or finishing), if `shouldAddNext` is false, if the iterator has
    ///   ended or the limit is reached, or if another call is adding one at this moment.
    @discardableResult
    public final func addNextOperation(_ shouldAddNext: @autoclosure () -> Bool = true) -> Bool {
        guard holdOpen() else { return false }
        defer { releaseHold() }
        guard let payloads = beginAdvancing() else { return false }
        defer { repeatState.withLock { $0.isAdvancing = false } }
        guard !isCancelled, shouldAddNext(), let payload = payloads.next() else { return false }
        add(payload)
        return true
    }

    /// The payload iterator, now this caller's to advance; `nil` if another caller has it.
    private func beginAdvancing() -> AnyIterator<Payload>? {
        repeatState.withLock { state in
            guard !state.isAdvancing else { return nil }
            state.isAdvancing = true
            return state.payloads
        }
    }

    /// Configures the payload's procedure and adds it, after its delay, as the current one.
    private func add(_ payload: Payload) {
        let configure = repeatState.withLock { state in
            if let replacement = payload.configure { state.configure = replacement }
            return state.configure
        }
        configure(payload.operation)
        repeatState.withLock { state in
            state.count += 1
            state.previous = state.current
            state.current = payload.operation
        }
        // A delay already over adds no pause: observers hear only the procedures.
        guard let delay = payload.delay, delay.interval > 0 else {
            return addChild(payload.operation)
        }
        let pause = DelayProcedure(delay: delay)
        payload.operation.addDependency(pause)
        addChildren([pause, payload.operation])
    }
}

extension RepeatProcedure: InputProcedure where T: InputProcedure {
    /// The current procedure's input; setting it sets the current procedure's and, through
    /// the configure block, every next one's.
    public var input: Pending<T.Input> {
        get { current.input }
        set {
            current.input = newValue
            let value = Carried(value: newValue)
            append(configureBlock: { $0.input = value.value })
        }
    }
}

extension RepeatProcedure: OutputProcedure where T: OutputProcedure {
    /// The current procedure's output; setting it sets the current procedure's and, through
    /// the configure block, every next one's.
    public var output: Pending<ProcedureResult<T.Output>> {
        get { current.output }
        set {
            current.output = newValue
            let value = Carried(value: newValue)
            append(configureBlock: { $0.output = value.value })
        }
    }
}

/// An input or output a repeat hands to each procedure it makes, from its configure block.
private struct Carried<Value>: @unchecked Sendable {
    // @unchecked Sendable: inputs and outputs pass between procedures on different threads
    // without being Sendable, as result injection passes them; this value is only copied.
    let value: Value
}

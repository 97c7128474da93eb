import Foundation

/// Runs a procedure again and again, as a new instance each time the last one finishes, up to
/// a limit, waiting between them.
///
/// Each procedure is a child of the repeat, made by the body when the one before it finishes;
/// the repeat ends when the body returns `nil`, when it has made `max` procedures, or when it
/// is cancelled, and finishes once the last procedure has. As in any group, the first error a
/// procedure finishes with becomes the repeat's error (a failure does not stop the repeat: see
/// ``RetryProcedure`` for that). Observers of the repeat hear every procedure as a will-add
/// event.
///
/// When `T` takes an input or gives an output, so does the repeat: its input is given to every
/// procedure, and its output is the current procedure's.
open class RepeatProcedure<T: Procedure>: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: the repeat's mutable state lives in `repeatState`, a `Locked` mutex.

    /// How long to wait before the next procedure.
    public enum WaitStrategy: Sendable, Equatable {
        /// Go on at once.
        case immediate
        /// Wait the same time every time.
        case constant(TimeInterval)
        /// Wait `initial` the first time, and `increment` more each next time.
        case incrementing(initial: TimeInterval, increment: TimeInterval)
        /// Wait `initial`, then `multiplier` times longer each next time, never more than
        /// `maximum`, less a random fraction of up to `jitter` (0 to 1) so that many repeats do
        /// not all fire at once.
        case exponential(
            initial: TimeInterval, multiplier: Double = 2, maximum: TimeInterval, jitter: Double = 0
        )

        /// The wait after procedure number `attempt` (from 1).
        public func delay<R: RandomNumberGenerator>(
            afterAttempt attempt: Int, using random: inout R
        ) -> TimeInterval {
            let retries = Double(max(0, attempt - 1))
            switch self {
            case .immediate:
                return 0
            case .constant(let interval):
                return interval
            case .incrementing(let initial, let increment):
                return initial + increment * retries
            case .exponential(let initial, let multiplier, let maximum, let jitter):
                let capped = min(maximum, initial * pow(multiplier, retries))
                let fraction = min(max(jitter, 0), 1)
                return capped * (1 - fraction * Double.random(in: 0..<1, using: &random))
            }
        }

        /// The wait after procedure number `attempt` (from 1).
        public func delay(afterAttempt attempt: Int) -> TimeInterval {
            var random = SystemRandomNumberGenerator()
            return delay(afterAttempt: attempt, using: &random)
        }
    }

    struct RepeatState {
        var count = 1
        var current: T
        /// Gives a new procedure the repeat's input; set once an input is.
        var applyInput: ((T) -> Void)?
    }

    /// The most procedures made, the first included; `nil` for no limit.
    public let maxCount: Int?

    /// How long to wait between procedures.
    public let wait: WaitStrategy

    private let body: @Sendable (Int) -> T?
    let repeatState: Locked<RepeatState>

    /// Creates a repeat of at most `max` procedures.
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
        precondition((max ?? 1) >= 1, "A repeat makes at least one procedure.")
        guard let first = body(1) else {
            preconditionFailure("The body must make the first procedure.")
        }
        self.maxCount = max
        self.wait = wait
        self.body = body
        repeatState = Locked(RepeatState(current: first))
        super.init(operations: [first])
        name = "\(Self.kind)<\(first.name ?? String(describing: T.self))>"
    }

    /// The name of the kind of group, for the repeat's name.
    class var kind: String { "Repeat" }

    /// How many procedures have been made so far, the current one included.
    public var count: Int {
        repeatState.withLock { $0.count }
    }

    /// The current procedure: the last one made.
    public var current: T {
        repeatState.withLock { $0.current }
    }

    /// Whether to go on after the current procedure finished with `error`.
    func repeats(afterError error: (any Error)?) -> Bool { true }

    /// Whether the error of a procedure that another follows becomes the group's.
    var recordsErrorsOfRepeatedProcedures: Bool { true }

    open override func child(_ child: Procedure, willFinishWithError error: (any Error)?) {
        let repeated = child === current && repeats(afterError: error) && addNext()
        guard !repeated || recordsErrorsOfRepeatedProcedures else { return }
        super.child(child, willFinishWithError: error)
    }

    /// Makes and adds the next procedure, after the wait, unless the repeat is cancelled, at
    /// its limit, or the body returns `nil`; returns whether it did.
    private func addNext() -> Bool {
        let made = repeatState.withLock { $0.count }
        guard !isCancelled, made < (maxCount ?? .max), let next = body(made + 1) else {
            return false
        }
        let applyInput = repeatState.withLock { state in
            state.count = made + 1
            state.current = next
            return state.applyInput
        }
        applyInput?(next)
        let delay = wait.delay(afterAttempt: made)
        if delay > 0 {
            let pause = DelayProcedure(by: delay)
            next.addDependency(pause)
            addChildren([pause, next])
        } else {
            addChild(next)
        }
        return true
    }
}

extension RepeatProcedure: InputProcedure where T: InputProcedure {
    /// The input every procedure is given.
    public var input: Pending<T.Input> {
        get { repeatState.withLock { $0.current.input } }
        set {
            let current = repeatState.withLock { state in
                state.applyInput = { $0.input = newValue }
                return state.current
            }
            current.input = newValue
        }
    }
}

extension RepeatProcedure: OutputProcedure where T: OutputProcedure {
    /// The current procedure's output.
    public var output: Pending<ProcedureResult<T.Output>> {
        get { current.output }
        set { current.output = newValue }
    }
}

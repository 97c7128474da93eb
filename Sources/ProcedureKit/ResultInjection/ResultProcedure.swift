/// A procedure whose output is the value its block returns (or the error it throws).
open class ResultProcedure<Output>: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: the output lives in a `Locked` mutex; the block is @Sendable.

    /// The work that gives the output: returned at once, or handed to a completion.
    enum Body {
        case returning(@Sendable () throws -> Output)
        case completing(@Sendable (@escaping @Sendable (ProcedureResult<Output>) -> Void) -> Void)
    }

    private let body: Body
    private let storedOutput = Locked(Pending<ProcedureResult<Output>>.pending)

    /// Creates a procedure whose output is what `block` returns.
    public init(block: @escaping @Sendable () throws -> Output) {
        body = .returning(block)
        super.init()
    }

    init(body: Body) {
        self.body = body
        super.init()
    }

    /// The block's value or error, once it has run.
    public var output: Pending<ProcedureResult<Output>> {
        get { storedOutput.withLock { $0 } }
        set { storedOutput.withLock { $0 = newValue } }
    }

    open override func execute() {
        switch body {
        case .returning(let block):
            finish(withResult: ProcedureResult { try block() })
        case .completing(let block):
            block { [self] result in finishOnce(withResult: result) }
        }
    }
}

/// A procedure that turns its input into its output with a block.
///
/// Executing without an input finishes it with a `requirementNotSatisfied` failure.
open class TransformProcedure<Input, Output>: Procedure, InputProcedure, OutputProcedure,
    @unchecked Sendable
{
    // @unchecked Sendable: input and output live in a `Locked` mutex; the block is @Sendable.

    /// The work that gives the output: returned at once, or handed to a completion.
    enum Body {
        case returning(@Sendable (Input) throws -> Output)
        case completing(
            @Sendable (Input, @escaping @Sendable (ProcedureResult<Output>) -> Void) -> Void)
    }

    private let body: Body
    // Two mutexes rather than one around a tuple: unspecialised generic code looks up the
    // metadata of every type it touches, and a tuple of generic types costs several lookups.
    private let storedInput = Locked(Pending<Input>.pending)
    private let storedOutput = Locked(Pending<ProcedureResult<Output>>.pending)

    /// Creates a procedure whose output is `transform` applied to its input.
    public init(transform: @escaping @Sendable (Input) throws -> Output) {
        body = .returning(transform)
        super.init()
    }

    init(body: Body) {
        self.body = body
        super.init()
    }

    /// The value to transform, usually injected.
    public var input: Pending<Input> {
        get { storedInput.withLock { $0 } }
        set { storedInput.withLock { $0 = newValue } }
    }

    /// The transformed value or the error the block threw, once it has run.
    public var output: Pending<ProcedureResult<Output>> {
        get { storedOutput.withLock { $0 } }
        set { storedOutput.withLock { $0 = newValue } }
    }

    open override func execute() {
        guard let input = input.value else {
            return finish(withResult: .failure(ProcedureKitError.requirementNotSatisfied()))
        }
        switch body {
        case .returning(let transform):
            finish(withResult: ProcedureResult { try transform(input) })
        case .completing(let transform):
            transform(input) { [self] result in finishOnce(withResult: result) }
        }
    }
}

extension ProcedureResult {
    /// The value `body` returns, or the error it throws.
    init(catching body: () throws -> T) {
        do {
            self = .success(try body())
        } catch {
            self = .failure(error)
        }
    }
}

extension OutputProcedure {
    /// Sets the output and finishes, unless the procedure has been asked to finish already:
    /// a completion called twice, or after a cancelled procedure finished, changes nothing.
    func finishOnce(withResult result: ProcedureResult<Output>) {
        let accepted = protected.withLock { protected -> Bool in
            guard !protected.isFinishRequested, protected.state == .executing else { return false }
            protected.isFinishRequested = true
            return true
        }
        guard accepted else { return }
        output = .ready(result)
        post(.finish(result.error))
    }
}

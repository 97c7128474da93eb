/// A procedure whose output is the value its block returns (or the error it throws).
open class ResultProcedure<Output>: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: the output lives in a `Locked` mutex; the block is @Sendable.
    private let block: @Sendable () throws -> Output
    private let storedOutput = Locked(Pending<ProcedureResult<Output>>.pending)

    /// Creates a procedure whose output is what `block` returns.
    public init(block: @escaping @Sendable () throws -> Output) {
        self.block = block
        super.init()
    }

    public var output: Pending<ProcedureResult<Output>> {
        get { storedOutput.withLock { $0 } }
        set { storedOutput.withLock { $0 = newValue } }
    }

    open override func execute() {
        do {
            finish(withResult: .success(try block()))
        } catch {
            finish(withResult: .failure(error))
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
    private let transform: @Sendable (Input) throws -> Output
    private let values = Locked(
        (input: Pending<Input>.pending, output: Pending<ProcedureResult<Output>>.pending))

    /// Creates a procedure whose output is `transform` applied to its input.
    public init(transform: @escaping @Sendable (Input) throws -> Output) {
        self.transform = transform
        super.init()
    }

    public var input: Pending<Input> {
        get { values.withLock { $0.input } }
        set { values.withLock { $0.input = newValue } }
    }

    public var output: Pending<ProcedureResult<Output>> {
        get { values.withLock { $0.output } }
        set { values.withLock { $0.output = newValue } }
    }

    open override func execute() {
        guard let input = input.value else {
            return finish(withResult: .failure(ProcedureKitError.requirementNotSatisfied()))
        }
        do {
            finish(withResult: .success(try transform(input)))
        } catch {
            finish(withResult: .failure(error))
        }
    }
}

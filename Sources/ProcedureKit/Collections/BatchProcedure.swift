/// What an element of a batch that gave no value adds to the batch: it failed, was cancelled,
/// or finished without an output.
public enum BatchElementOutcome<Output> {
    /// The batch fails with `error` once every element has finished; the others run on.
    case fail(any Error)
    /// The batch fails with `error` at once: the elements that have not finished are
    /// cancelled, as by the batch's own cancellation.
    case failFast(any Error)
    /// `value` takes the element's place in the output.
    case substitute(Output)
    /// The element is left out of the output.
    case omit
}

/// Runs one procedure per element of its input array, as its children, and outputs the array
/// of their outputs, in the order of the elements.
///
/// The procedures are made when the batch executes, by a factory given each element and its
/// index, and get the element as their input (an injected input, so a group binds it on). They
/// run as children of the batch: its ``GroupProcedure/maxConcurrentOperationCount`` limits
/// how many run at once, its observers hear each one added, and cancelling the batch cancels
/// them.
///
/// An element whose procedure fails, is cancelled, or gives no output is put to the batch's
/// failure rule, which says what it adds to the batch (``BatchElementOutcome``). The default
/// rule fails the batch with the element's error, once every element has finished, and leaves
/// out elements cancelled without an error. A batch that fails outputs its error; one that is
/// cancelled outputs nothing; one without an input fails with `requirementNotSatisfied`.
///
/// ```swift
/// let sizes = BatchProcedure { _, path in FileSize(path) }.injectResult(from: listing)
/// sizes.maxConcurrentOperationCount = 4
/// ```
open class BatchProcedure<Transform: Procedure & InputProcedure & OutputProcedure>: GroupProcedure,
    InputProcedure, OutputProcedure, @unchecked Sendable
{
    // @unchecked Sendable: the batch's mutable state lives in `batch`, a `Locked` mutex.

    /// Makes the procedure for element number `index` (from 0), whose value is `element`.
    public typealias Factory = @Sendable (_ index: Int, _ element: Transform.Input) -> Transform

    /// Says what element number `index`, whose procedure gave no value, adds to the batch;
    /// `error` is the procedure's, after ``GroupProcedure/transformChildErrorBlock``.
    public typealias FailureRule =
        @Sendable (_ index: Int, _ procedure: Transform, _ error: (any Error)?) ->
        BatchElementOutcome<Transform.Output>

    private enum Slot {
        case waiting
        case value(Transform.Output)
        case omitted
    }

    private struct BatchState {
        var input: Pending<[Transform.Input]> = .pending
        var output: Pending<ProcedureResult<[Transform.Output]>> = .pending
        var indices: [ObjectIdentifier: Int] = [:]
        var slots: [Slot] = []
        var hasFailedFast = false
    }

    private let batch = Locked(BatchState())
    private let makeProcedure: Factory
    private let failureRule: FailureRule

    /// Creates a batch that makes its procedures with `makeProcedure`.
    ///
    /// - Parameters:
    ///   - failureRule: what an element that gave no value adds to the batch; by default, its
    ///     error fails the batch and an element cancelled without one is left out.
    ///   - makeProcedure: makes the procedure for each element, given its index and value.
    public init(failureRule: FailureRule? = nil, via makeProcedure: @escaping Factory) {
        self.makeProcedure = makeProcedure
        self.failureRule = failureRule ?? { _, _, error in error.map { .fail($0) } ?? .omit }
        super.init(operations: [])
        name = "Batch<\(Transform.self)>"
    }

    /// Creates a batch that makes each procedure with `generator`.
    public convenience init(via generator: @escaping @Sendable () -> Transform) {
        self.init { _, _ in generator() }
    }

    /// The elements, one per procedure.
    public var input: Pending<[Transform.Input]> {
        get { batch.withLock { $0.input } }
        set { batch.withLock { $0.input = newValue } }
    }

    /// The outputs of the elements' procedures, in the order of the elements.
    public var output: Pending<ProcedureResult<[Transform.Output]>> {
        get { batch.withLock { $0.output } }
        set { batch.withLock { $0.output = newValue } }
    }

    open override func execute() {
        guard let elements = input.value else {
            return finish(with: ProcedureKitError.requirementNotSatisfied())
        }
        addChildren(makeProcedures(for: elements))
        super.execute()
    }

    private func makeProcedures(for elements: [Transform.Input]) -> [Transform] {
        var procedures: [Transform] = []
        procedures.reserveCapacity(elements.count)
        var indices: [ObjectIdentifier: Int] = [:]
        indices.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let procedure = makeProcedure(index, element)
            procedure.input = .ready(element)
            procedure.didInjectInput()
            indices[ObjectIdentifier(procedure)] = index
            procedures.append(procedure)
        }
        batch.withLock { batch in
            batch.indices = indices
            batch.slots = Array(repeating: .waiting, count: elements.count)
        }
        return procedures
    }

    open override func child(_ child: Procedure, willFinishWithError error: (any Error)?) {
        guard let element = child as? Transform else {
            return super.child(child, willFinishWithError: error)
        }
        let value = error == nil ? element.output.value?.value : nil
        let found = batch.withLock { batch -> (index: Int, isDone: Bool)? in
            guard let index = batch.indices[ObjectIdentifier(child)] else { return nil }
            if let value { batch.slots[index] = .value(value) }
            return (index, value != nil || batch.hasFailedFast)
        }
        guard let found else { return super.child(child, willFinishWithError: error) }
        guard !found.isDone, !isCancelled else { return }
        apply(failureRule(found.index, element, error), to: found.index, of: child)
    }

    private func apply(
        _ outcome: BatchElementOutcome<Transform.Output>, to index: Int, of child: Procedure
    ) {
        switch outcome {
        case .substitute(let value):
            batch.withLock { $0.slots[index] = .value(value) }
        case .omit:
            batch.withLock { $0.slots[index] = .omitted }
        case .fail(let error):
            super.child(child, willFinishWithError: error)
        case .failFast(let error):
            batch.withLock { $0.hasFailedFast = true }
            super.child(child, willFinishWithError: error)
            let reason = ProcedureKitError.parent(cancelledWithError: error)
            for case let element as Transform in children where !element.isFinished {
                element.cancel(with: reason)
            }
        }
    }

    /// Sets the output as the batch finishes: its error, or the elements' values.
    open override func procedureWillFinish(with error: (any Error)?) {
        super.procedureWillFinish(with: error)
        if let error {
            output = .ready(.failure(error))
        } else if !isCancelled {
            output = .ready(gatheredValues())
        }
    }

    private func gatheredValues() -> ProcedureResult<[Transform.Output]> {
        batch.withLock { batch in
            var values: [Transform.Output] = []
            values.reserveCapacity(batch.slots.count)
            for slot in batch.slots {
                switch slot {
                case .value(let value): values.append(value)
                case .omitted: continue
                case .waiting: return .failure(ProcedureKitError.requirementNotSatisfied())
                }
            }
            return .success(values)
        }
    }
}

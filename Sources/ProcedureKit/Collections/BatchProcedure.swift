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

    private let values = Locked(
        (
            input: Pending<[Transform.Input]>.pending,
            output: Pending<ProcedureResult<[Transform.Output]>>.pending
        ))
    /// Not generic, so that an element finishing reads no generic type metadata.
    private let elements = Locked(BatchElements())
    private let substitutes = Locked([Int: Transform.Output]())
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
        get { values.withLock { $0.input } }
        set { values.withLock { $0.input = newValue } }
    }

    /// The outputs of the elements' procedures, in the order of the elements.
    public var output: Pending<ProcedureResult<[Transform.Output]>> {
        get { values.withLock { $0.output } }
        set { values.withLock { $0.output = newValue } }
    }

    open override func execute() {
        guard let elements = input.value else {
            return finish(with: ProcedureKitError.requirementNotSatisfied())
        }
        addChildren(makeProcedures(for: elements))
        super.execute()
    }

    private func makeProcedures(for values: [Transform.Input]) -> [Transform] {
        var procedures: [Transform] = []
        procedures.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            let procedure = makeProcedure(index, value)
            procedure.input = .ready(value)
            procedure.didInjectInput()
            procedures.append(procedure)
        }
        elements.withLock { $0.procedures = procedures }
        return procedures
    }

    open override func child(_ child: Procedure, willFinishWithError error: (any Error)?) {
        guard let element = child as? Transform else {
            return super.child(child, willFinishWithError: error)
        }
        if error == nil, !element.isCancelled, case .ready(.success) = element.output { return }
        guard let index = elements.withLock({ $0.index(of: child) }) else {
            return super.child(child, willFinishWithError: error)
        }
        guard !isCancelled, !elements.withLock({ $0.hasFailedFast }) else { return }
        apply(failureRule(index, element, error), to: index, of: child)
    }

    private func apply(
        _ outcome: BatchElementOutcome<Transform.Output>, to index: Int, of child: Procedure
    ) {
        switch outcome {
        case .substitute(let value):
            substitutes.withLock { $0[index] = value }
        case .omit:
            elements.withLock { _ = $0.omitted.insert(index) }
        case .fail(let error):
            super.child(child, willFinishWithError: error)
        case .failFast(let error):
            elements.withLock { $0.hasFailedFast = true }
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
        let (procedures, omitted) = elements.withLock { elements in
            defer { elements.procedures = [] }
            return (elements.procedures, elements.omitted)
        }
        if let error {
            output = .ready(.failure(error))
        } else if !isCancelled {
            output = .ready(gathered(procedures, leavingOut: omitted))
        }
    }

    /// The values of the elements' procedures, or of their substitutes, in order.
    private func gathered(
        _ procedures: [Procedure], leavingOut omitted: Set<Int>
    ) -> ProcedureResult<[Transform.Output]> {
        let substitutes = substitutes.withLock { $0 }
        var values: [Transform.Output] = []
        values.reserveCapacity(procedures.count)
        for (index, procedure) in procedures.enumerated() {
            if !omitted.isEmpty, omitted.contains(index) { continue }
            let substitute = substitutes.isEmpty ? nil : substitutes[index]
            guard
                let value = substitute
                    ?? unsafeDowncast(procedure, to: Transform.self).output.value?.value
            else { return .failure(ProcedureKitError.requirementNotSatisfied()) }
            values.append(value)
        }
        return .success(values)
    }
}

/// A batch's elements, as plain procedures.
private struct BatchElements {
    /// In the order of the input; emptied once the batch has gathered their outputs.
    var procedures: [Procedure] = []
    /// Where each procedure is in `procedures`; made the first time it is needed, as most
    /// batches never need it.
    var indices: [ObjectIdentifier: Int]?
    var omitted = Set<Int>()
    var hasFailedFast = false

    mutating func index(of procedure: Procedure) -> Int? {
        if indices == nil {
            var made: [ObjectIdentifier: Int] = [:]
            made.reserveCapacity(procedures.count)
            for (index, element) in procedures.enumerated() {
                made[ObjectIdentifier(element)] = index
            }
            indices = made
        }
        return indices?[ObjectIdentifier(procedure)]
    }
}

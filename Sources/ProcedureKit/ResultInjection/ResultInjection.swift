/// A procedure that needs a value before it executes: its input.
public protocol InputProcedure<Input>: Procedure {
    associatedtype Input

    /// The input: pending until it is set, by hand or by ``injectResult(from:)``.
    var input: Pending<Input> { get set }
}

/// A procedure that produces a value: its output.
public protocol OutputProcedure<Output>: Procedure {
    associatedtype Output

    /// The output: pending until the procedure sets it, usually as it finishes.
    var output: Pending<ProcedureResult<Output>> { get set }
}

extension OutputProcedure {
    /// Sets the output to `result` and finishes, with the result's error if it is a failure.
    public func finish(withResult result: ProcedureResult<Output>) {
        output = .ready(result)
        finish(with: result.error)
    }
}

extension InputProcedure {
    /// Takes the output of `dependency` as this procedure's input.
    ///
    /// Adds `dependency` as a dependency, and sets the input as the dependency finishes, before
    /// this procedure can become ready — or at once, if the dependency has finished already.
    /// If the dependency does not produce a value, this
    /// procedure is cancelled instead:
    ///
    /// | the dependency | this procedure is cancelled with |
    /// | --- | --- |
    /// | was cancelled with error `e` | `ProcedureKitError.dependency(cancelledWithError: e)` |
    /// | was cancelled without an error | `ProcedureKitError.dependenciesCancelled()` |
    /// | finished with error `e`, or output `.failure(e)` | `ProcedureKitError.dependency(finishedWithError: e)` |
    /// | finished with a pending output | `ProcedureKitError.requirementNotSatisfied()` |
    ///
    /// - Returns: this procedure, so that calls can be chained.
    @discardableResult
    public func injectResult<Dependency: OutputProcedure>(from dependency: Dependency) -> Self
    where Dependency.Output == Input {
        injectResult(from: dependency) { $0 }
    }

    /// Takes the output of `dependency`, which must not be `nil`, as this procedure's input.
    ///
    /// As ``injectResult(from:)``; a `nil` output cancels this procedure with
    /// `ProcedureKitError.requirementNotSatisfied()`.
    @discardableResult
    public func injectResult<Dependency: OutputProcedure>(from dependency: Dependency) -> Self
    where Dependency.Output == Input? {
        injectResult(from: dependency) { output in
            guard let output else { throw ProcedureKitError.requirementNotSatisfied() }
            return output
        }
    }

    /// Takes the output of `dependency`, passed through `transform`, as this procedure's input.
    ///
    /// As ``injectResult(from:)``; if `transform` throws, this procedure is cancelled with the
    /// error it threw.
    @discardableResult
    public func injectResult<Dependency: OutputProcedure>(
        from dependency: Dependency,
        via transform: @escaping @Sendable (Dependency.Output) throws -> Input
    ) -> Self {
        injectResult(from: dependency) { receiver, value in
            receiver.input = .ready(try transform(value))
            receiver.didInjectInput()
        }
    }

    /// Sets the input of `target` to this procedure's input each time an input is injected
    /// into this procedure (not when it is set by hand).
    ///
    /// A group binds its input to the child that needs it.
    public func bind<Target: InputProcedure>(to target: Target) where Target.Input == Input {
        addInputInjectionObserver { [weak self] in
            guard let self else { return }
            target.input = input
            target.didInjectInput()
        }
    }
}

extension OutputProcedure {
    /// Takes the output of `source` as this procedure's output when `source` finishes.
    ///
    /// A group binds its output from the child that produces it.
    public func bind<Source: OutputProcedure>(from source: Source) where Source.Output == Output {
        source.addWillFinishBlockObserver { [weak self] source, _ in
            self?.output = source.output
        }
    }
}

extension ProcedureProtocol {
    /// Hands `dependency`, and the error it finishes with, to `block` as the dependency
    /// finishes, before this procedure can become ready: for values that are not an `Output`
    /// to `Input`, such as a property of the dependency or its failure.
    ///
    /// Adds `dependency` as a dependency. `block` runs whatever becomes of the dependency —
    /// finished, failed or cancelled — in turn with the dependency's will-finish observers, or
    /// at once if the dependency has finished already; it decides what to do with this
    /// procedure, such as cancel it.
    ///
    /// - Parameters:
    ///   - dependency: the procedure to wait for and read.
    ///   - block: receives this procedure, the dependency and the dependency's error.
    /// - Returns: this procedure, so that calls can be chained.
    @discardableResult
    public func inject<Dependency: Procedure>(
        dependency: Dependency,
        block: @escaping @Sendable (Self, Dependency, (any Error)?) -> Void
    ) -> Self {
        addDependency(dependency)
        let observer = InjectionObserver<Dependency, Self>(receiver: self, block: block)
        if !dependency.addObserverBeforeFinishing(observer) {
            // Already finishing or finished: its error and output are final, so inject now.
            observer.will(finish: dependency, with: dependency.error)
        }
        return self
    }

    /// Hands the output of `dependency` to `inject` as the dependency finishes, before this
    /// procedure can become ready: for values that are not the procedure's one input, such as
    /// one of several named inputs.
    ///
    /// Adds `dependency` as a dependency. The failure mapping is that of
    /// ``InputProcedure/injectResult(from:)``; if `inject` throws, this procedure is cancelled
    /// with the error it threw.
    ///
    /// - Returns: this procedure, so that calls can be chained.
    @discardableResult
    public func injectResult<Dependency: OutputProcedure>(
        from dependency: Dependency,
        into inject: @escaping @Sendable (Self, Dependency.Output) throws -> Void
    ) -> Self {
        self.inject(dependency: dependency) { receiver, dependency, error in
            switch injectionOutcome(of: dependency, error: error) {
            case .cancel(let reason):
                receiver.cancel(with: reason)
            case .value(let value):
                do {
                    try inject(receiver, value)
                } catch {
                    receiver.cancel(with: error)
                }
            }
        }
    }
}

/// Hands the dependency it observes to the receiver's block as that dependency finishes.
///
/// A dedicated observer rather than a block observer: small enough to be stored without a
/// heap allocation of its own, which matters in long chains.
private struct InjectionObserver<Dependency: Procedure, Receiver: Procedure>: ProcedureObserver {
    weak var receiver: Receiver?
    let block: @Sendable (Receiver, Dependency, (any Error)?) -> Void

    func will(finish procedure: Procedure, with error: (any Error)?) {
        guard let receiver else { return }
        block(receiver, unsafeDowncast(procedure, to: Dependency.self), error)
    }
}

private enum InjectionOutcome<Value> {
    case value(Value)
    case cancel(ProcedureKitError)
}

/// What a finishing dependency gives the procedure that takes its output.
private func injectionOutcome<Dependency: OutputProcedure>(
    of dependency: Dependency, error: (any Error)?
) -> InjectionOutcome<Dependency.Output> {
    if dependency.isCancelled {
        return .cancel(
            error.map { ProcedureKitError.dependency(cancelledWithError: $0) }
                ?? ProcedureKitError.dependenciesCancelled())
    }
    if let error {
        return .cancel(ProcedureKitError.dependency(finishedWithError: error))
    }
    switch dependency.output {
    case .pending:
        return .cancel(ProcedureKitError.requirementNotSatisfied())
    case .ready(.failure(let error)):
        return .cancel(ProcedureKitError.dependency(finishedWithError: error))
    case .ready(.success(let value)):
        return .value(value)
    }
}

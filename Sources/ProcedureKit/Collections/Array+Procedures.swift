import Foundation

extension Array where Element: Operation {
    /// Makes each of `operations` wait for every operation of this array.
    ///
    /// - Returns: this array followed by `operations`, ready to add to a queue in one call.
    public func then<S: Sequence<Element>>(do operations: S) -> [Element] {
        let next = Array(operations)
        for operation in next {
            for dependency in self { operation.addDependency(dependency) }
        }
        return self + next
    }

    /// Makes each of `operations` wait for every operation of this array.
    ///
    /// - Returns: this array followed by `operations`, ready to add to a queue in one call.
    public func then(do operations: Element...) -> [Element] {
        then(do: operations)
    }
}

extension Array where Element: OutputProcedure {
    /// A procedure whose output is the outputs of these procedures, in their order, once they
    /// have all finished.
    ///
    /// The procedures become its dependencies. If one of them produces no value, the gathered
    /// procedure is cancelled, with the error ``InputProcedure/injectResult(from:)`` would
    /// give (such as `dependency(finishedWithError: e)`).
    public func gathered() -> ResultProcedure<[Element.Output]> {
        combined { $0 }
    }

    /// A procedure whose output is the non-`nil` results of `transform` on these procedures'
    /// outputs, in their order, once they have all finished; as ``gathered()`` otherwise.
    public func flatMap<Mapped>(
        transform: @escaping @Sendable (Element.Output) throws -> Mapped?
    ) -> ResultProcedure<[Mapped]> {
        combined { try $0.compactMap(transform) }
    }

    /// A procedure whose output is these procedures' outputs, in their order, combined by
    /// `nextPartialResult` from `initialResult`, once they have all finished; as
    /// ``gathered()`` otherwise.
    public func reduce<Result>(
        _ initialResult: Result,
        _ nextPartialResult: @escaping @Sendable (Result, Element.Output) throws -> Result
    ) -> ResultProcedure<Result> where Result: Sendable {
        combined { try $0.reduce(initialResult, nextPartialResult) }
    }

    /// A procedure whose output is `combine` of these procedures' outputs, in their order.
    private func combined<Result>(
        _ combine: @escaping @Sendable ([Element.Output]) throws -> Result
    ) -> ResultProcedure<Result> {
        let outputs = Locked([Element.Output?](repeating: nil, count: count))
        let combined = ResultProcedure { try combine(outputs.withLock { $0.map { $0! } }) }
        for (index, procedure) in enumerated() {
            combined.injectResult(from: procedure) { _, output in
                outputs.withLock { $0[index] = output }
            }
        }
        return combined
    }
}

/// A procedure whose output is its input array combined into one value by a block, element by
/// element from an initial value.
///
/// A throw from the block fails the procedure with the error thrown.
open class ReduceProcedure<Element, Reduced: Sendable>: TransformProcedure<[Element], Reduced>,
    @unchecked Sendable
{
    // @unchecked Sendable: adds no state to TransformProcedure's.

    /// Creates a procedure that reduces its input from `initial` with `nextPartialResult`.
    public init(
        initial: Reduced,
        nextPartialResult: @escaping @Sendable (Reduced, Element) throws -> Reduced
    ) {
        super.init { try $0.reduce(initial, nextPartialResult) }
    }

    /// Creates a procedure that reduces `source` from `initial` with `nextPartialResult`.
    public convenience init(
        source: [Element], initial: Reduced,
        nextPartialResult: @escaping @Sendable (Reduced, Element) throws -> Reduced
    ) {
        self.init(initial: initial, nextPartialResult: nextPartialResult)
        input = .ready(source)
    }
}

extension OutputProcedure where Output: Sequence & Sendable {
    /// A procedure that reduces this procedure's output from `initial` with
    /// `nextPartialResult`, once it is ready.
    public func reduce<Reduced: Sendable>(
        _ initial: Reduced,
        nextPartialResult: @escaping @Sendable (Reduced, Output.Element) throws -> Reduced
    ) -> ReduceProcedure<Output.Element, Reduced> {
        ReduceProcedure(initial: initial, nextPartialResult: nextPartialResult)
            .injectResult(from: self) { Array($0) }
    }
}

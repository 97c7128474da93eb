/// A procedure whose output is the non-`nil` results of a block applied to each element of its
/// input array, in order, as the original's `FlatMapProcedure`.
///
/// A throw from the block fails the procedure with the error thrown.
open class FlatMapProcedure<Element, Mapped>: TransformProcedure<[Element], [Mapped]>,
    @unchecked Sendable
{
    // @unchecked Sendable: adds no state to TransformProcedure's.

    /// Creates a procedure that maps its input with `transform`, keeping the non-`nil` results.
    public init(transform: @escaping @Sendable (Element) throws -> Mapped?) {
        super.init { try $0.compactMap(transform) }
    }

    /// Creates a procedure that maps `source` with `transform`, keeping the non-`nil` results.
    public convenience init(
        source: [Element], transform: @escaping @Sendable (Element) throws -> Mapped?
    ) {
        self.init(transform: transform)
        input = .ready(source)
    }
}

extension OutputProcedure where Output: Sequence & Sendable {
    /// A procedure that maps this procedure's output with `transform`, keeping the non-`nil`
    /// results, once it is ready.
    public func flatMap<Mapped>(
        transform: @escaping @Sendable (Output.Element) throws -> Mapped?
    ) -> FlatMapProcedure<Output.Element, Mapped> {
        FlatMapProcedure(transform: transform).injectResult(from: self) { Array($0) }
    }
}

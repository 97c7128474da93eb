/// A procedure whose output is its input array with a block applied to each element, in order.
///
/// A throw from the block fails the procedure with the error thrown.
open class MapProcedure<Element, Mapped>: TransformProcedure<[Element], [Mapped]>,
    @unchecked Sendable
{
    // @unchecked Sendable: adds no state to TransformProcedure's.

    /// Creates a procedure that maps its input with `transform`.
    public init(transform: @escaping @Sendable (Element) throws -> Mapped) {
        super.init { try $0.map(transform) }
    }

    /// Creates a procedure that maps `source` with `transform`.
    public convenience init(
        source: [Element], transform: @escaping @Sendable (Element) throws -> Mapped
    ) {
        self.init(transform: transform)
        input = .ready(source)
    }
}

extension OutputProcedure where Output: Sequence & Sendable {
    /// A procedure that maps this procedure's output with `transform`, once it is ready.
    public func map<Mapped>(
        transform: @escaping @Sendable (Output.Element) throws -> Mapped
    ) -> MapProcedure<Output.Element, Mapped> {
        MapProcedure(transform: transform).injectResult(from: self) { Array($0) }
    }
}

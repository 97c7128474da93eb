/// A procedure whose output is the elements of its input array that a block includes, in
/// order.
///
/// A throw from the block fails the procedure with the error thrown.
open class FilterProcedure<Element>: TransformProcedure<[Element], [Element]>, @unchecked Sendable {
    // @unchecked Sendable: adds no state to TransformProcedure's.

    /// Creates a procedure that keeps the elements of its input for which `isIncluded` is
    /// true.
    public init(isIncluded: @escaping @Sendable (Element) throws -> Bool) {
        super.init { try $0.filter(isIncluded) }
    }

    /// Creates a procedure that keeps the elements of `source` for which `isIncluded` is true.
    public convenience init(
        source: [Element], isIncluded: @escaping @Sendable (Element) throws -> Bool
    ) {
        self.init(isIncluded: isIncluded)
        input = .ready(source)
    }
}

extension OutputProcedure where Output: Sequence & Sendable {
    /// A procedure that filters this procedure's output with `includeElement`, once it is
    /// ready.
    public func filter(
        includeElement: @escaping @Sendable (Output.Element) throws -> Bool
    ) -> FilterProcedure<Output.Element> {
        FilterProcedure(isIncluded: includeElement).injectResult(from: self) { Array($0) }
    }
}

/// A procedure whose output is the arrays of its input joined into one, in order.
open class FlattenProcedure<Element>: TransformProcedure<[[Element]], [Element]>,
    @unchecked Sendable
{
    // @unchecked Sendable: adds no state to TransformProcedure's.

    /// Creates a procedure that joins the arrays of its input.
    public init() {
        super.init { $0.flatMap { $0 } }
    }

    /// Creates a procedure that joins the arrays of `source`.
    public convenience init(source: [[Element]]) {
        self.init()
        input = .ready(source)
    }
}

extension OutputProcedure where Output: Sequence & Sendable, Output.Element: Sequence & Sendable {
    /// A procedure that joins the sequences of this procedure's output, once it is ready.
    public func flatten() -> FlattenProcedure<Output.Element.Element> {
        FlattenProcedure().injectResult(from: self) { $0.map { Array($0) } }
    }
}

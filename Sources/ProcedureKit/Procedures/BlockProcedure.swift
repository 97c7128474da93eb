/// A procedure that runs a block: it finishes when the block returns, with the error the block
/// throws if it throws.
open class BlockProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: its only stored property, a Sendable block, is a constant.
    private let block: @Sendable () throws -> Void

    /// Creates a procedure that runs `block` when it executes.
    public init(block: @escaping @Sendable () throws -> Void) {
        self.block = block
        super.init()
    }

    open override func execute() {
        do {
            try block()
            finish()
        } catch {
            finish(with: error)
        }
    }
}

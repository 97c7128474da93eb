import Foundation

/// A procedure that runs a block: one that returns, and finishes the procedure as it does (with
/// the error it throws, if it throws), or, as in the original, one handed the procedure itself,
/// which must finish it.
open class BlockProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: its only stored property, `body`, is a constant of Sendable blocks.

    private enum Body: Sendable {
        case returning(@Sendable () throws -> Void)
        case finishing(@Sendable (BlockProcedure) -> Void)
    }

    private static let timeout = Locked<TimeInterval>(3)

    /// How long a procedure made with `init(block:)` with a block taking the procedure may run, in seconds, before it is
    /// cancelled with `timedOut` — a guard against a block that forgets to finish; 3 s, as in
    /// the original. Read when the procedure is made.
    public static var defaultTimeoutInterval: TimeInterval {
        get { timeout.withLock { $0 } }
        set { timeout.withLock { $0 = newValue } }
    }

    private let body: Body

    /// Creates a procedure that runs `block` when it executes, and finishes when it returns.
    public init(block: @escaping @Sendable () throws -> Void) {
        body = .returning(block)
        super.init()
    }

    /// Creates a procedure that hands itself to `block` when it executes: `block` must call
    /// `finish` on it, from any thread (`BlockProcedure { this in … this.finish() }`). It is
    /// cancelled with `timedOut` if still running after ``defaultTimeoutInterval`` seconds.
    public init(block: @escaping @Sendable (BlockProcedure) -> Void) {
        body = .finishing(block)
        super.init()
        addObserver(TimeoutObserver(by: Self.defaultTimeoutInterval))
    }

    open override func execute() {
        switch body {
        case .returning(let block):
            do {
                try block()
                finish()
            } catch {
                finish(with: error)
            }
        case .finishing(let block):
            block(self)
        }
    }
}

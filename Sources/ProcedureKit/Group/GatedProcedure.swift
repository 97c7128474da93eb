import Foundation

/// A ``ComposedProcedure`` whose operation runs only if a gate says so when the procedure's turn
/// comes, as the original's does: `true` runs it; `false`, or an error the gate throws, is
/// "ignored" — the procedure is skipped without an error, unless another condition added to it
/// is satisfied.
open class GatedProcedure<T: Operation>: ComposedProcedure<T>, @unchecked Sendable {
    // @unchecked Sendable: it stores nothing of its own; the gate lives in a condition.

    /// Wraps `operation`, run only if `gate` answers `true`.
    public init(_ operation: T, gate: @escaping @Sendable () throws -> Bool) {
        super.init(operation)
        addCondition(IgnoredCondition(BlockCondition(block: gate)))
    }

    /// Wraps `operation`, run only if `gate` answers `true`.
    public convenience init(operation: T, gate: @escaping @Sendable () throws -> Bool) {
        self.init(operation, gate: gate)
    }
}

import Foundation
import ProcedureKit

/// A group's `transformChildErrorBlock`: keeps the errors of children that failed (and were not
/// tolerated) and of children cancelled from outside (`--fail-fast`, a signal), so that the group
/// is reported cut short too; drops the rest (skips, warnings).
func keepingFailures(
    tolerating tolerated: Set<String>
) -> @Sendable (Operation, inout (any Error)?) -> Void {
    { child, error in
        let outcome = StepOutcome.classify(error: error, cancelled: child.isCancelled)
        if case .cancelled = outcome { return }
        if !outcome.isFailure || tolerated.contains(child.name ?? "") { error = nil }
    }
}

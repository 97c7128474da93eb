import Foundation
import ProcedureKit

/// Tears down a step's condition command when the step is cancelled.
struct ConditionCancellation: ProcedureObserver {
    let condition: WorkflowCondition

    func did(cancel procedure: Procedure, with error: (any Error)?) {
        condition.cancel(with: error)
    }
}

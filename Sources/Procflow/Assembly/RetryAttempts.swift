import Foundation
import ProcedureKit

/// What a reporter needs of a retry, whatever it retries.
protocol RetryAttempts {
    var attempt: Int { get }
    var maxAttempts: Int { get }
    /// The error of the attempt before the current one.
    var previousError: (any Error)? { get }
}

extension RetryProcedure: RetryAttempts {
    var previousError: (any Error)? {
        children.compactMap { $0 as? T }.dropLast().last?.error
    }
}

import Dispatch
import Foundation

/// A procedure that does nothing for a while: it finishes a given time after it starts, or at
/// once if it is cancelled. Make others depend on it to delay them.
open class DelayProcedure: Procedure, @unchecked Sendable {
    /// How long it waits, in seconds.
    public let interval: TimeInterval

    /// Waits `interval` seconds; named "Delay for 1.0 seconds", as the original names it.
    public init(by interval: TimeInterval) {
        self.interval = interval
        super.init()
        name = "Delay for \(interval) seconds"
    }

    /// Waits until `date`; named "Delay until" the date.
    public convenience init(until date: Date) {
        self.init(by: date.timeIntervalSinceNow)
        name = "Delay until \(date)"
    }

    open override func execute() {
        guard interval > 0 else { return finish() }
        DispatchQueue.global().asyncAfter(deadline: .now() + interval) { [weak self] in
            self?.finish()
        }
    }

    open override func procedureDidCancel(with error: (any Error)?) {
        finish()
    }
}

import Dispatch
import Foundation

/// A procedure that does nothing for a while: it finishes once its ``Delay`` is over, or at
/// once if it is cancelled. Make others depend on it to delay them.
///
/// Its input is the delay, given when it is made or injected (``injectDelay(from:by:)``,
/// ``injectResult(from:)``). Executing without one cancels it with
/// `ProcedureKitError.requirementNotSatisfied()`, as the original does. An interval that is not
/// positive, or a date already past when it executes, finishes it at once.
open class DelayProcedure: Procedure, InputProcedure, @unchecked Sendable {
    // @unchecked Sendable: the input and the timer live in `delayState`, a `Locked` mutex; the
    // leeway is a constant.

    private struct DelayState {
        var input: Pending<Delay> = .pending
        /// Finishes the procedure when the delay is over; cancelled if the procedure is.
        var timer: (any DispatchSourceTimer)?
    }

    private let delayState = Locked(DelayState())
    private let leeway: DispatchTimeInterval

    /// Creates a delay procedure, named "Delay" and then the delay ("Delay for 1.0 seconds").
    ///
    /// - Parameters:
    ///   - delay: how long to wait; `nil` to have it injected, and the name is "Delay".
    ///   - leeway: how late the procedure may finish, which lets the system save energy.
    public init(delay: Delay? = nil, leeway: DispatchTimeInterval = .milliseconds(1)) {
        self.leeway = leeway
        super.init()
        if let delay {
            delayState.withLock { $0.input = .ready(delay) }
            name = "Delay \(delay)"
        } else {
            name = "Delay"
        }
    }

    /// Creates a procedure that waits `interval` seconds, named "Delay for 1.0 seconds".
    ///
    /// - Parameters:
    ///   - interval: the seconds to wait from when it executes.
    ///   - leeway: how late the procedure may finish.
    public convenience init(
        by interval: TimeInterval, leeway: DispatchTimeInterval = .milliseconds(1)
    ) {
        self.init(delay: .by(interval), leeway: leeway)
    }

    /// Creates a procedure that waits until `date`, named "Delay until" the date.
    ///
    /// - Parameters:
    ///   - date: when to finish.
    ///   - leeway: how late the procedure may finish.
    public convenience init(until date: Date, leeway: DispatchTimeInterval = .milliseconds(1)) {
        self.init(delay: .until(date), leeway: leeway)
    }

    /// The delay: pending until it is given or injected.
    public var input: Pending<Delay> {
        get { delayState.withLock { $0.input } }
        set { delayState.withLock { $0.input = newValue } }
    }

    open override func execute() {
        guard let delay = input.value else {
            return cancel(with: ProcedureKitError.requirementNotSatisfied())
        }
        let interval = delay.interval
        guard interval > 0 else { return finish() }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            delayState.withLock { $0.timer = nil }
            finish()
        }
        // A wait too long for the clock (`.infinity`) ends in the distant future.
        let deadline = interval < 1e9 ? DispatchTime.now() + interval : .distantFuture
        timer.schedule(deadline: deadline, leeway: leeway)
        delayState.withLock { $0.timer = timer }
        timer.resume()
    }

    open override func procedureDidCancel(with error: (any Error)?) {
        delayState.withLock { $0.timer.take() }?.cancel()
        finish()
    }
}

import Foundation
import Synchronization

/// A procedure's execute or finish that has not happened yet, held back while this token lives.
///
/// Will-execute observers get one for the execute
/// (``ProcedureObserver/will(execute:pendingExecute:)``), will-finish observers one for the
/// finish (``ProcedureObserver/will(finish:with:pendingFinish:)``); ``Procedure/pendingEvent``
/// gives one to the procedure's own callbacks. The event — `execute()` and its did-execute observers, or
/// the move to finished with its did-finish observers and its dependents starting — happens
/// once every token for it is gone. Keep one, in a closure or a property, to finish
/// asynchronous work before the event:
///
/// ```swift
/// procedure.addWillFinishBlockObserver { procedure, _, pendingFinish in
///     DispatchQueue.global().async {
///         try? procedure.produce(operation: Cleanup(), before: pendingFinish)
///     }
/// }
/// ```
///
/// The hold ends when the last reference to the token goes away, so forgetting to release it is
/// impossible; a token that is never let go (a reference cycle, a closure that is never run)
/// holds the event for ever, as in the original. While the event is held, the procedure's
/// other callbacks wait behind it; only work added before it —
/// ``Procedure/produce(operation:before:)``, ``GroupProcedure/addChild(_:before:)`` — runs.
/// Cancelling the procedure does not end a hold.
public final class PendingEvent: Sendable, CustomStringConvertible {
    /// Which of its procedure's events a token holds.
    public enum Kind: Sendable, CustomStringConvertible {
        /// The call to `execute()`.
        case execute
        /// The procedure finishing.
        case finish

        /// `"execute"` or `"finish"`.
        public var description: String {
            switch self {
            case .execute: return "execute"
            case .finish: return "finish"
            }
        }
    }

    /// The event held.
    public let kind: Kind

    /// The procedure whose event it is.
    let procedure: Procedure

    /// Whether the procedure counts this token as a hold, which its going ends. The token
    /// handed to observers is counted only if it outlives them.
    let isCounted: Atomic<Bool>

    /// Made by the procedure only, which counts it as a hold on `kind` if `isCounted`.
    init(_ kind: Kind, of procedure: Procedure, isCounted: Bool) {
        self.kind = kind
        self.procedure = procedure
        self.isCounted = Atomic(isCounted)
    }

    deinit {
        if isCounted.load(ordering: .acquiring) { procedure.pendingEventDidEnd(kind) }
    }

    /// Runs `body` with the event still to come, however soon the token would otherwise go.
    ///
    /// - Parameter body: the work that must be done before the event.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public func doBeforeEvent<Result>(_ body: () throws -> Result) rethrows -> Result {
        try withExtendedLifetime(self) { try body() }
    }

    /// The event and the procedure's name, such as "pending finish of Download".
    public var description: String {
        "pending \(kind) of \(procedure.name ?? "a procedure")"
    }
}

/// A token holding a procedure's execute; see ``PendingEvent``.
public typealias PendingExecuteEvent = PendingEvent

/// A token holding a procedure's finish; see ``PendingEvent``.
public typealias PendingFinishEvent = PendingEvent

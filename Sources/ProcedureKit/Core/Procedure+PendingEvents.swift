import Dispatch
import Foundation

// How a held event works. While a procedure announces its execute (will-execute observers) or
// its finish (procedureWillFinish, will-finish observers), `heldEvent` is set. A token read
// from `pendingEvent` counts one hold at once; the token handed to the observers counts one
// only if someone still has it when they have all returned (so that a procedure whose
// observers keep nothing takes no lock for it). Then the event happens at once if nothing holds
// it and no work waits before it — the path every procedure without holds takes, at the cost
// of a check. Otherwise the event loop stays busy (`isHandlingEvents` remains true, so other
// events queue behind the held one) and runs, in turn: the work added before the event
// (`workBeforeHeldEvent`), then, once the last counted token has gone, the event itself
// (`.resumeExecute`, `.resumeFinish`). When it has nothing to run it parks (`isParked`):
// whoever next adds work before the event runs it on their thread; the last token to go
// resumes the event on another thread, as tokens may be let go anywhere, even under a lock of
// the caller's.

extension Procedure {
    /// An event being announced, or held back by tokens.
    struct HeldEvent {
        let kind: PendingEvent.Kind
        /// Counted tokens for the event still alive.
        var holds = 0
        /// The announcement is over and no thread is handling the procedure's events.
        var isParked = false

        init(_ kind: PendingEvent.Kind) {
            self.kind = kind
        }
    }

    /// A token for the event this procedure is about to reach, while its callbacks announce it
    /// or it is held; `nil` at any other time.
    ///
    /// Its execute is announced while will-execute observers run, its finish while
    /// ``procedureWillFinish(with:)`` and will-finish observers run. Each read makes a new
    /// token; keeping one holds the event back until it goes, as the token an observer is given
    /// does. Use it where no token is handed over, in `procedureWillFinish(with:)` for example:
    ///
    /// ```swift
    /// override func procedureWillFinish(with error: (any Error)?) {
    ///     guard let pendingFinish = pendingEvent else { return }
    ///     try? produce(operation: Report(), before: pendingFinish)
    /// }
    /// ```
    public final var pendingEvent: PendingEvent? {
        let kind = protected.withLock { protected -> PendingEvent.Kind? in
            guard protected.heldEvent != nil else { return nil }
            protected.heldEvent!.holds += 1
            return protected.heldEvent!.kind
        }
        return kind.map { PendingEvent($0, of: self, isCounted: true) }
    }

    /// Called as a token for `kind` goes: the last one resumes a parked event.
    final func pendingEventDidEnd(_ kind: PendingEvent.Kind) {
        let resumes = protected.withLock { protected -> Bool in
            precondition(
                protected.heldEvent?.kind == kind,
                "A pending \(kind) outlived the hold that counted it.")
            protected.heldEvent!.holds -= 1
            guard protected.heldEvent!.holds == 0, protected.heldEvent!.isParked else {
                return false
            }
            protected.heldEvent = nil
            return true
        }
        guard resumes else { return }
        DispatchQueue.global().async { [self] in
            CallDepth.nested { handleEvents(startingWith: Self.resumption(of: kind)) }
        }
    }

    /// Ends the announcement of the event in `heldEvent`: true if it may happen now (nothing
    /// holds it, nothing waits before it), false if the event loop is to resume it later.
    ///
    /// - Parameter handedOut: the token the observers were given, if any: counted as a hold if
    ///   anyone else still has it.
    static func announcementDidEnd(
        _ protected: inout Protected, handedOut token: inout PendingEvent?
    ) -> Bool {
        if token != nil, !isKnownUniquelyReferenced(&token) {
            token!.isCounted.store(true, ordering: .releasing)
            protected.heldEvent!.holds += 1
        }
        guard protected.heldEvent!.holds == 0, protected.workBeforeHeldEvent?.isEmpty ?? true
        else {
            return false
        }
        protected.heldEvent = nil
        return true
    }

    /// What the event loop handles next while an event is held: the work before it, then,
    /// once nothing holds it, the event; `nil` parks the loop.
    static func nextWhileHeld(_ protected: inout Protected) -> Event? {
        if let work = protected.workBeforeHeldEvent?.popFirst() { return .work(work) }
        guard protected.heldEvent!.holds > 0 else {
            defer { protected.heldEvent = nil }
            return resumption(of: protected.heldEvent!.kind)
        }
        protected.heldEvent!.isParked = true
        return nil
    }

    /// The event that carries out `kind` once it is no longer held.
    private static func resumption(of kind: PendingEvent.Kind) -> Event {
        switch kind {
        case .execute: return .resumeExecute
        case .finish: return .resumeFinish
        }
    }

    /// Runs `work` in turn with this procedure's callbacks, before `event` happens.
    ///
    /// For one of this procedure's own events, `work` runs ahead of the events queued behind
    /// it; for another procedure's, `work` is queued as any other and `event` is held until it
    /// has run.
    final func runInTurn(_ work: @escaping @Sendable () -> Void, before event: PendingEvent) {
        guard event.procedure === self else {
            post(.work { event.doBeforeEvent(work) })
            return
        }
        // A live token means its event is still to come, so a callback may run `work` at once.
        if CurrentProcedure.isHandling(self) { return work() }
        let runsNow = protected.withLock { protected -> Bool in
            precondition(
                protected.heldEvent?.kind == event.kind,
                "\(event) was used after the event happened: a token kept weakly does not hold it.")
            guard protected.heldEvent!.isParked else {
                if protected.workBeforeHeldEvent == nil {
                    protected.workBeforeHeldEvent = RingBuffer()
                }
                protected.workBeforeHeldEvent!.append(work)
                return false
            }
            protected.heldEvent!.isParked = false
            return true
        }
        if runsNow { handle(startingWith: .work(work)) }
    }
}

import CProcflow
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension Jobserver {
    /// Tokens a step holds while its command runs.
    struct Tokens: Sendable {
        let count: Int
        /// Whether the command was handed the jobserver, and so may hold tokens of its own.
        let handsOver: Bool
        /// Whether one of them is the implicit slot of a procflow that joined a jobserver.
        var implicit = false
    }

    /// A step's request for tokens, to cancel it by.
    struct Ticket: Sendable, Equatable {
        fileprivate let number: Int
    }

    /// A step waiting for tokens.
    struct Waiter {
        let ticket: Ticket
        let tokens: Tokens
        /// How many it has so far, the implicit slot among them if it has it.
        var taken = 0
        var implicit = false
        let granted: @Sendable (Tokens) -> Void

        /// What it holds once it has all its tokens.
        var held: Tokens {
            Tokens(count: tokens.count, handsOver: tokens.handsOver, implicit: implicit)
        }
    }

    /// Takes `count` tokens for a step (at most ``slots``), waiting while every token is held;
    /// `granted` is called once it has them — on this thread if they are free now, else on a
    /// thread that waits on the FIFO — unless ``cancel(_:)`` stops the wait first.
    ///
    /// - Parameter handsOver: whether the step's command is handed the jobserver.
    func acquire(
        _ count: Int, handsOver: Bool, granted: @escaping @Sendable (Tokens) -> Void
    ) -> Ticket {
        let tokens = Tokens(count: min(max(1, count), slots), handsOver: handsOver)
        let (ticket, ready, startWatching) = state.withLock { state in
            state.requests += 1
            let ticket = Ticket(number: state.requests)
            state.waiting.append(Waiter(ticket: ticket, tokens: tokens, granted: granted))
            // Those already waiting come first.
            let ready = state.waiting.count == 1 ? serve(&state) : []
            let start = !state.waiting.isEmpty && !state.watching
            if start { state.watching = true }
            return (ticket, ready, start)
        }
        for waiter in ready { waiter.granted(waiter.held) }
        if startWatching { WorkerThreads.shared.run { [self] in watch() } }
        return ticket
    }

    /// Stops the wait of `ticket`, putting back the tokens it had gathered; false when it is
    /// not waiting (its tokens were granted).
    func cancel(_ ticket: Ticket) -> Bool {
        let cancelled = state.withLock { state -> Bool in
            guard let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) else {
                return false
            }
            let waiter = state.waiting.remove(at: index)
            putBack(waiter.taken, implicit: waiter.implicit, &state)
            return true
        }
        if cancelled { wakeWatcher() }
        return cancelled
    }

    /// Puts back the tokens of a step whose command is over.
    func release(_ tokens: Tokens) {
        state.withLock { state in
            putBack(tokens.count, implicit: tokens.implicit, &state)
            if tokens.handsOver { state.clients -= 1 }
            if state.clients == 0 { restore(&state) }
        }
        // The implicit slot passes through no FIFO: the waiting steps are told.
        if tokens.implicit { wakeWatcher() }
    }

    /// Waits on the FIFO for tokens and hands them to the waiting steps in turn, until none
    /// waits.
    private func watch() {
        while true {
            let (ready, done, closes) = state.withLock { state -> ([Waiter], Bool, Bool) in
                let ready = serve(&state)
                let done = state.waiting.isEmpty || state.closed
                if done { state.watching = false }
                // Closed while this waited: the descriptors are this watcher's to close.
                let closes = done && state.closed && state.descriptorsOpen
                if closes { state.descriptorsOpen = false }
                return (ready, done, closes)
            }
            for waiter in ready { waiter.granted(waiter.held) }
            if closes { closeDescriptors() }
            if done { return }
            var descriptors = [
                pollfd(fd: own, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&descriptors, 2, -1)
            if descriptors[1].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                _ = Glibc.read(wake.read, &bytes, bytes.count)
            }
        }
    }

    /// Gives the waiting steps, first come first served, the tokens the FIFO has for them;
    /// the steps that now have all theirs, taken out of the line.
    private func serve(_ state: inout State) -> [Waiter] {
        guard !state.closed else { return [] }
        var ready: [Waiter] = []
        while var first = state.waiting.first {
            if state.implicitSlotFree {
                state.implicitSlotFree = false
                first.implicit = true
                first.taken += 1
            }
            let taken = readTokens(first.tokens.count - first.taken)
            first.taken += taken
            state.held += taken
            guard first.taken == first.tokens.count else {
                state.waiting[0] = first
                break
            }
            state.waiting.removeFirst()
            if first.tokens.handsOver { state.clients += 1 }
            ready.append(first)
        }
        return ready
    }

    /// Puts `count` tokens procflow held back: the implicit slot, if one of them is, in its
    /// place, the others in the FIFO.
    private func putBack(_ count: Int, implicit: Bool, _ state: inout State) {
        guard !state.closed else { return }
        if implicit { state.implicitSlotFree = true }
        let inFIFO = implicit ? count - 1 : count
        state.held -= inFIFO
        writeTokens(inFIFO)
    }

    /// With no client running, every token procflow does not hold belongs in the FIFO: puts
    /// back those killed clients took with them, and takes out any a client put back twice.
    private func restore(_ state: inout State) {
        // A pool procflow joined is its maker's to restore.
        guard !state.closed, ownsPool else { return }
        let inFIFO = Int(procflow_bytes_pending(own))
        guard inFIFO >= 0 else { return }
        let expected = slots - state.held
        if inFIFO < expected {
            writeTokens(expected - inFIFO)
        } else if inFIFO > expected {
            _ = readTokens(inFIFO - expected)
        }
    }
}

/// The procedure whose events the current thread is handling, innermost first.
///
/// A procedure's callbacks run on the thread handling its events, so a call made from one of
/// them can act at once, in turn with the others, where a call from elsewhere has to queue:
/// `produce(operation:before:)` relies on telling the two apart.
enum CurrentProcedure {
    private static let mark = ThreadMark()

    /// Whether the current thread is handling `procedure`'s events, and no other's inside them.
    static func isHandling(_ procedure: Procedure) -> Bool {
        mark.isMarked(for: procedure)
    }

    /// Runs `body`, which handles `procedure`'s events.
    static func handling<R>(_ procedure: Procedure, _ body: () throws -> R) rethrows -> R {
        try mark.marking(procedure, body)
    }
}

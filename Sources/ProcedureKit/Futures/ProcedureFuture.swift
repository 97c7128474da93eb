import Dispatch

/// Something that will happen: schedule work for when it has with `then(on:block:)`.
///
/// A future is made by a ``ProcedurePromise``, which signals it, and carries no value (a
/// ``ProcedureFutureResult`` does). ``ProcedureQueue/addOperation(_:)`` returns one, signalled
/// once the operation has been added.
public final class ProcedureFuture: Sendable {
    let completion: FutureCompletion<Void>

    init(_ completion: FutureCompletion<Void>) {
        self.completion = completion
    }

    /// A future already signalled: what a queue returns, since it adds operations at once.
    static let signalled = ProcedureFuture(FutureCompletion(settledWith: ()))

    /// Whether the future has been signalled.
    public var isSignalled: Bool {
        completion.isSettled
    }

    /// Runs `block` on `queue` once the future has been signalled (asynchronously, even if it
    /// already has).
    ///
    /// - Parameters:
    ///   - queue: where `block` runs.
    ///   - block: the work to do.
    public func then(on queue: DispatchQueue, block: @escaping @Sendable () -> Void) {
        completion.whenSettled { queue.async { block() } }
    }

    /// Runs `block` once the future has been signalled, in turn with `procedure`'s other
    /// callbacks: never at the same time as its `execute()`, its observers or its hooks.
    ///
    /// The block runs after the callback of `procedure` running at that moment, if there is
    /// one; otherwise at once, on the thread that signals the future (or that calls this, once
    /// it has been signalled).
    ///
    /// - Parameters:
    ///   - procedure: whose callbacks `block` takes its turn with.
    ///   - block: the work to do.
    public func then(on procedure: Procedure, block: @escaping @Sendable () -> Void) {
        completion.whenSettled { procedure.post(.work(block)) }
    }
}

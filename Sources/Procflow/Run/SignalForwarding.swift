import Dispatch
import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// While a run (or a watch) lasts: the first SIGINT or SIGTERM cancels it (its commands get the
/// signal, then SIGKILL after the grace period); a second one kills every command at once.
final class SignalForwarding: @unchecked Sendable {
    // @unchecked Sendable: `sources` is set once in init and only cancelled afterwards.
    private let sources: [any DispatchSourceSignal]

    /// Forwards to `runner`: the first signal interrupts it, the next ones kill it.
    convenience init(runner: WorkflowRunner) {
        self.init(first: { runner.interrupt(signal: $0) }, again: { runner.kill() })
    }

    /// Calls `first` with the first SIGINT or SIGTERM, `again` for each one after it.
    init(first: @escaping @Sendable (Int32) -> Void, again: @escaping @Sendable () -> Void) {
        // A closed stdout (`procflow run w.json | head`) must not kill procflow midway and orphan
        // its commands: writes fail with EPIPE instead, and the run goes on. Commands get the
        // default disposition back when they are spawned.
        SignalSetUp.prepare()
        let received = Locked(0)
        let queue = DispatchQueue(label: "procflow.signals")
        sources = [SIGINT, SIGTERM].map { (signalNumber: Int32) -> any DispatchSourceSignal in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                let count = received.withLock { count in
                    count += 1
                    return count
                }
                if count == 1 { first(signalNumber) } else { again() }
            }
            source.resume()
            return source
        }
    }

    func stop() {
        for source in sources { source.cancel() }
    }
}

import Foundation
import ProcedureKit

/// `cacheKey` commands started ahead of their need, and their results.
///
/// The up-to-date check starts the commands its snapshot names before it looks at the files,
/// so that they run while it does, and while the workflow is loaded if the snapshot does not
/// answer alone; a run whose steps need one of them then takes its result rather than running
/// it again. A run without a snapshot starts its steps' commands as it opens its cache, so that
/// they run while it reads its index and drafts its steps. A command is matched by its text,
/// directory and whole environment: a result stands only for the very command the run would
/// run. A run takes a result once: a later run (`--watch`) runs the command again.
enum KeyCommandsAhead {
    private struct Request: Hashable {
        var command: String
        var directory: String
        var environment: [String: String]
    }

    /// A command under way, or its digest once over.
    private final class Pending: Sendable {
        private let over = DispatchGroup()
        private let result = Locked<Digest?>(nil)

        init() { over.enter() }

        func finish(with digest: Digest) {
            result.withLock { $0 = digest }
            over.leave()
        }

        func wait() -> Digest? {
            over.wait()
            return result.withLock { $0 }
        }
    }

    private static let started = Locked<[Request: Pending]>([:])

    /// Starts `command` on another thread, as a run runs it
    /// (``CacheKeyValues/commandDigest(_:in:environment:)``), unless it was started already.
    static func start(_ command: String, in directory: String, environment: [String: String]) {
        let request = Request(command: command, directory: directory, environment: environment)
        let pending = started.withLock { started -> Pending? in
            guard started[request] == nil else { return nil }
            let pending = Pending()
            started[request] = pending
            return pending
        }
        guard let pending else { return }
        // On a worker thread the run goes on to use, not one of Dispatch's, which would be
        // made for this alone.
        WorkerThreads.shared.run {
            pending.finish(
                with: CacheKeyValues.commandDigest(
                    command, in: directory, environment: environment))
        }
    }

    /// The digest of what `command` gives in `directory` with `environment`: that of the one
    /// started ahead, once it is over, or else of a run now.
    ///
    /// - Parameter taking: whether the result started ahead is used up, so that a later run
    ///   runs the command again (a run's own need); `false` for the check's.
    static func digest(
        of command: String, in directory: String, environment: [String: String], taking: Bool
    ) -> Digest {
        let request = Request(command: command, directory: directory, environment: environment)
        let pending = started.withLock { started in
            taking ? started.removeValue(forKey: request) : started[request]
        }
        return pending?.wait()
            ?? CacheKeyValues.commandDigest(command, in: directory, environment: environment)
    }

    /// Waits until every command started ahead is over: none outlives procflow.
    static func waitForAll() {
        for pending in started.withLock({ Array($0.values) }) { _ = pending.wait() }
    }
}

import Foundation
import ProcedureKit

/// A run's ``Jobserver``, made when the first shell step on this machine asks for it (a run
/// of HTTP requests or Slurm jobs makes no FIFO), closed when the run is over.
final class RunJobserver: Sendable {
    /// How many tokens it holds: the run's `--max-concurrent`.
    let slots: Int
    private let temporaryDirectory: String
    /// The FIFO of a pool made by another, to join instead of making one.
    private let joining: String?
    private let made = Locked<Made?>(nil)
    /// Whether ``prepare()`` was called.
    private let preparing = Locked(false)

    /// What making the jobserver gave. (Not a `Result`: the runtime's first lookup of a
    /// `Result` of a new error type costs a quarter of a million instructions.)
    private enum Made {
        case made(Jobserver)
        case failed(StepError)
        /// The run ended before anything asked for it: none is made any more.
        case closed
    }

    /// A jobserver of `slots` tokens, its FIFO to be made under
    /// `temporaryDirectory` — or under `/tmp` if its path has a space or a tab, which would
    /// split `fifo:PATH` in `MAKEFLAGS`; `nil` when `slots` is more than one holds
    /// (``Jobserver/mostSlots``). With `joining`, the pool of that FIFO, made by another, is
    /// joined instead.
    init?(slots: Int, temporaryDirectory: String, joining: String? = nil) {
        guard slots <= Jobserver.mostSlots else { return nil }
        self.slots = max(1, slots)
        self.temporaryDirectory =
            temporaryDirectory.contains(where: { $0 == " " || $0 == "\t" })
            ? "/tmp" : temporaryDirectory
        self.joining = joining
    }

    /// The jobserver, made now if it is not yet.
    ///
    /// - Throws: a ``StepError`` when it cannot be made (then every step asking says so).
    func jobserver() throws(StepError) -> Jobserver {
        let result = made.withLock { made in
            if let made { return made }
            let result: Made
            do throws(StepError) {
                if let joining {
                    result = .made(try Jobserver(joining: joining, slots: slots))
                } else {
                    result = .made(
                        try Jobserver(slots: slots, temporaryDirectory: temporaryDirectory))
                }
            } catch {
                result = .failed(error)
            }
            made = result
            return result
        }
        switch result {
        case .made(let jobserver): return jobserver
        case .failed(let error): throw error
        case .closed: throw StepError(.spawnFailed, "the run is over: no jobserver is made")
        }
    }

    /// Makes the jobserver on a worker thread, if it is not made yet: a step that will ask
    /// for it is built. Its first command then does not wait for the FIFO to be made and
    /// opened (a tenth of a millisecond, at times half of one, of a run of one step); the
    /// thread is one the run's queue goes on to use.
    ///
    /// Once a run: the steps built together (hundreds, on a cold run) ask one after another,
    /// before any worker has made it.
    ///
    /// - Returns: whether this call set a worker to make it.
    @discardableResult
    func prepare() -> Bool {
        let first = preparing.withLock { asked in
            defer { asked = true }
            return !asked
        }
        guard first, made.withLock({ $0 == nil }) else { return false }
        WorkerThreads.shared.run { [self] in _ = try? jobserver() }
        return true
    }

    /// Closes the jobserver and removes its FIFO, if it was made; none is made after.
    func close() {
        let jobserver = made.withLock { made -> Jobserver? in
            guard let made else {
                made = .closed
                return nil
            }
            if case .made(let jobserver) = made { return jobserver }
            return nil
        }
        jobserver?.close()
    }
}

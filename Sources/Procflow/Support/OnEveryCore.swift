import Dispatch
import ProcedureKit

/// Work on many items split between the cores: this thread takes the first slice, the run's
/// worker threads the others.
enum OnEveryCore {
    /// Calls `body` with slices of `0..<count` that together cover it, at once on as many
    /// threads as there are cores (each slice at least `minimumSlice` long: fewer items are
    /// not worth a thread), and returns once every call has. The core count, which reads
    /// cgroup files, is asked only when there are enough items for two slices.
    static func slices(
        of count: Int, minimumSlice: Int, _ body: @escaping @Sendable (Range<Int>) -> Void
    ) {
        let slices = count < 2 * minimumSlice ? 1 : min(CoreCount.available, count / minimumSlice)
        guard slices > 1 else { return body(0..<count) }
        @Sendable func range(_ slice: Int) -> Range<Int> {
            count * slice / slices..<count * (slice + 1) / slices
        }
        let done = DispatchSemaphore(value: 0)
        for slice in 1..<slices {
            WorkerThreads.shared.run {
                body(range(slice))
                done.signal()
            }
        }
        body(range(0))
        for _ in 1..<slices { done.wait() }
    }
}

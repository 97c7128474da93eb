import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How a run ends what its commands left behind: nothing the run started outlives it.
enum RunTeardown {
    /// Waits, while any is alive and at most `gracePeriod`, for the commands of `groups` still
    /// being torn down (they have had their signal); then ends the processes that left their
    /// groups — found below procflow in the process tree when it `ownsDescendants`, else by
    /// the run id `runID` in their environment — and what is left of the groups, with SIGTERM,
    /// the grace period, then SIGKILL. `hurry` turning true (a second signal) cuts the waits
    /// short.
    static func endLeftovers(
        of groups: ProcessGroups, runID: String, ownsDescendants: Bool,
        gracePeriod: TimeInterval, hurry: () -> Bool
    ) {
        let deadline = Date().addingTimeInterval(gracePeriod)
        while groups.anyAlive(), Date() < deadline, !hurry() {
            usleep(10_000)
        }
        let leftovers =
            ownsDescendants
            ? LeftoverSweep.descendants()
            : LeftoverSweep.carrying("PROCFLOW_RUN_ID", value: runID)
        LeftoverSweep.terminate(leftovers, gracePeriod: gracePeriod, hurry: hurry)
        groups.signalAll(SIGKILL)
    }
}

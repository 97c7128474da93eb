/// How a shell step on this machine shares the run's jobserver.
struct JobserverUse: Sendable {
    var jobserver: RunJobserver
    /// How many tokens it takes while its command runs: as many as the places it takes.
    var tokens: Int
    /// Whether its command is handed the jobserver (`MAKEFLAGS` and two descriptors); a step
    /// with `"jobserver": false` still takes its tokens, but its command gets neither.
    var handsOver: Bool
}

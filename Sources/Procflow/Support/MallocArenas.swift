import CProcflow

/// glibc's `malloc` gives threads that meet at its lock arenas of their own, up to eight a
/// core, and memory freed in one arena is reused only by the threads that use it: a large run,
/// whose steps are built and let go of on several threads, holds more than it uses. At
/// 100,000 steps on 2 cores the full run's peak was 400 MiB with glibc's default, 384 MiB with
/// two arenas and 377 MiB with one; the 2,000-step chain took the same time with two arenas
/// as with sixteen (0.99×, farm-bench, 10 pairs).
enum MallocArenas {
    /// The arenas a run keeps to: one a core it may run on, at least two; `nil` where the
    /// user chose (`MALLOC_ARENA_MAX`, or `arena_max` in `GLIBC_TUNABLES`).
    static func limit(environment: [String: String], cores: Int) -> Int32? {
        guard environment["MALLOC_ARENA_MAX"] == nil,
            environment["GLIBC_TUNABLES"]?.contains("arena_max") != true
        else { return nil }
        return Int32(clamping: max(2, cores))
    }

    /// Keeps `malloc` to ``limit(environment:cores:)`` arenas from now on (glibc's only),
    /// counting the CPUs the process's affinity allows: one system call, where
    /// ``CoreCount/available`` reads the control group's files too.
    static func keepToLimit(environment: [String: String]) {
        let cores = Int(procflow_affinity_cpu_count())
        guard let limit = limit(environment: environment, cores: cores) else { return }
        _ = procflow_limit_malloc_arenas(limit)
    }
}

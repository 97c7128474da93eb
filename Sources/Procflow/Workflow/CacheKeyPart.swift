/// Something outside a step's declared files that its result depends on, named in `cacheKey`:
/// the toolchain it runs, most often. Each part counts in the step's definition, so a change
/// makes it run again, here and for every machine sharing a remote cache.
public enum CacheKeyPart: Sendable, Hashable {
    /// A text, variables filled in: `"${CC_VERSION}"`.
    case text(String)
    /// A command whose exit status and standard output count, run once per run in the
    /// workflow's directory and environment: `{"command": "cc --version"}`.
    case command(String)
    /// A file whose content counts (a compiler, a lock file), relative to the workflow's
    /// directory: `{"file": "/usr/bin/cc"}`.
    case file(String)
}

extension Jobserver {
    /// `MAKEFLAGS` for a command handed the jobserver: `existing` (the command's own value),
    /// then the run's `-j` and both forms of `--jobserver-auth`.
    ///
    /// Readers take the last form they know. `--jobserver-auth=fifo:PATH` is for ninja 1.13
    /// (which takes no other on POSIX), make 4.4 and cargo's jobserver crate;
    /// `--jobserver-fds=3,4` for versions of that crate from before FIFOs; `--jobserver-f=3,4`
    /// — getopt's abbreviation of `--jobserver-fds`, which only make's option parser reads —
    /// for make 4.3, which stops at a `fifo:` it cannot read.
    func makeflags(after existing: String?) -> String {
        guard let existing, !existing.allSatisfy(\.isWhitespace) else { return clientFlags }
        return existing + clientFlags
    }

    /// The FIFO a `MAKEFLAGS` value names for a jobserver, if it names one: the last
    /// `--jobserver-auth` or `--jobserver-fds` is `--jobserver-auth=fifo:PATH`, and the flags
    /// are not make's `-n` (whose first word, when it has no dash, holds the letter flags).
    static func fifo(namedIn makeflags: String?) -> String? {
        guard let makeflags else { return nil }
        let words = makeflags.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if let first = words.first, !first.hasPrefix("-"), first.contains("n") { return nil }
        let last = words.last {
            $0.hasPrefix("--jobserver-auth=") || $0.hasPrefix("--jobserver-fds=")
        }
        // Prefixes, not a regular expression: the first use of one costs more than this run's
        // jobserver does.
        let auth = "--jobserver-auth=fifo:"
        guard let last, last.hasPrefix(auth), last.count > auth.count else { return nil }
        return String(last.dropFirst(auth.count))
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The signal state a process that starts and watches commands needs.
enum SignalSetUp {
    /// Prepares this process, once: SIGPIPE ignored, so that a command that closes its stdin
    /// early, or a reader of procflow's output that goes away, cannot kill it; and SIGCHLD back
    /// to its default, because an ignored SIGCHLD (inherited through exec from a parent that
    /// ignored it) makes the kernel reap children itself, and their exit statuses are lost.
    static func prepare() {
        _ = prepared
    }

    private static let prepared: Void = {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGCHLD, SIG_DFL)
    }()

    /// Unblocks every signal on the calling thread, and the threads it starts afterwards: a
    /// mask inherited through exec would hold back SIGINT and SIGTERM.
    static func unblockAll() {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
    }
}

import CProcflow

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Tells a run whether it ran a step alone, so that it never records a file another run of
/// the same step was writing: two runs of one workflow at once (the state directory allows
/// it) can run one step at once, and then neither knows whose bytes the file holds.
///
/// Each step has a slot in the workflow's lock file (`build.json-….lock`, whose `flock` guards
/// the index): a byte that every run of the step holds shared while its command runs, and a
/// counter of the runs that started it. A run records only if, when its command ended, no
/// other run held the step (it takes the byte exclusively, without waiting) and no other run
/// started it since it did (the counter is where it left it). It keeps the byte exclusively
/// while it stores the files; a run starting the step meanwhile waits for that, briefly.
/// Locks are open-file-description locks (`F_OFD_SETLK`), one descriptor per step run, so
/// that they also keep apart the steps of one run that share a slot. Where the lock file
/// cannot be opened or locked, every run counts as alone, as before.
final class StepRunLock: Sendable {
    private let descriptor: Int32
    private let offset: Int64
    /// The count of runs of the step when this run started it; `nil` if another run held
    /// the step then.
    private let generation: UInt64?

    /// Slots per lock file: steps whose ids share one are taken for one step, which only
    /// makes runs at once record less.
    private static let slots: UInt64 = 1 << 16

    /// Starts the run of the step `id`, whose workflow's lock file is `path`: waits while
    /// another run stores the step's files, then holds the step shared.
    init(path: String, step id: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a: the same in every process
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        offset = Int64(hash % Self.slots) * 8
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, StateDirectory.fileMode)
        guard descriptor >= 0 else {
            generation = 0
            return
        }
        let started = Self.bump(descriptor, at: offset)
        let alone = Self.lock(descriptor, offset, .exclusive, wait: false)
        generation = alone ? started : nil
        _ = Self.lock(descriptor, offset, .shared, wait: true)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Whether the run was alone with the step from its start until now; if so, the step is
    /// held exclusively until ``release()``, while its files are stored.
    func wasAlone() -> Bool {
        guard descriptor >= 0 else { return true }
        guard let generation, Self.lock(descriptor, offset, .exclusive, wait: false) else {
            return false
        }
        return Self.count(descriptor, at: offset) == generation
    }

    /// Lets go of the step.
    func release() {
        guard descriptor >= 0 else { return }
        _ = Self.lock(descriptor, offset, .unlocked, wait: false)
    }

    private enum Kind: Int32 {
        case shared = 0
        case exclusive, unlocked
    }

    /// Locks the step's byte at `offset`; whether it was locked (or the file cannot lock at
    /// all).
    private static func lock(_ descriptor: Int32, _ offset: Int64, _ kind: Kind, wait: Bool)
        -> Bool
    {
        let result = procflow_lock_range(descriptor, offset, 1, kind.rawValue, wait ? 1 : 0)
        return result == 0 || (errno != EAGAIN && errno != EACCES)
    }

    /// Adds one to the count of runs of the slot at `offset`, under the lock of its second
    /// byte; the new count.
    private static func bump(_ descriptor: Int32, at offset: Int64) -> UInt64 {
        _ = procflow_lock_range(descriptor, offset + 1, 1, Kind.exclusive.rawValue, 1)
        defer { _ = procflow_lock_range(descriptor, offset + 1, 1, Kind.unlocked.rawValue, 0) }
        var count = count(descriptor, at: offset) &+ 1
        _ = pwrite(descriptor, &count, 8, off_t(offset))
        return count
    }

    /// The count of runs of the slot at `offset`.
    private static func count(_ descriptor: Int32, at offset: Int64) -> UInt64 {
        _ = procflow_lock_range(descriptor, offset + 1, 1, Kind.shared.rawValue, 1)
        defer { _ = procflow_lock_range(descriptor, offset + 1, 1, Kind.unlocked.rawValue, 0) }
        var count: UInt64 = 0
        return pread(descriptor, &count, 8, off_t(offset)) == 8 ? count : 0
    }
}

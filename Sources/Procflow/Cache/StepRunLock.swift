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
/// Each step has, in the workflow's lock file (`build.json-….lock`, whose `flock` guards the
/// index), a byte that every run of the step holds shared while its command runs — at an
/// offset from the 64-bit hash of its id, far past the file's end (a lock needs no data) —
/// and a counter of the runs that started it while another was running it. A run that
/// starts a step another run holds counts itself there. A run records only if it started
/// alone, no other run holds the step when its command ends (it takes the byte exclusively,
/// without waiting), and no other run started it meanwhile (the counter is where it was). It
/// keeps the byte exclusively while it stores the files; a run starting the step meanwhile
/// waits for that, briefly. Locks are open-file-description locks (`F_OFD_SETLK`), one
/// descriptor per step run. Where the lock file cannot be opened or locked, every run counts
/// as alone, as before.
final class StepRunLock: Sendable {
    private let descriptor: Int32
    /// Where the step's byte is.
    private let offset: Int64
    /// Where its counter is (steps whose ids share a counter can only make runs at once
    /// record less).
    private let counter: Int64
    /// The counter when this run started the step; `nil` if another run held the step then.
    private let generation: UInt64?

    /// Counters per lock file.
    private static let counters: UInt64 = 1 << 16

    /// Starts the run of the step `id`, whose workflow's lock file is `path`: waits while
    /// another run stores the step's files, then holds the step shared.
    init(path: String, step id: String) {
        // FNV-1a, then SplitMix64's finalizer: the same in every process, every bit mixed.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
        hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
        hash ^= hash >> 31
        // Past the counters, below 2^62.
        offset = Int64(Self.counters * 8) + Int64(hash >> 3)
        counter = Int64(hash % Self.counters) * 8
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, StateDirectory.fileMode)
        guard descriptor >= 0 else {
            generation = 0
            return
        }
        if Self.lock(descriptor, offset, .exclusive, wait: false) {
            generation = Self.count(descriptor, at: counter)
        } else {
            Self.bump(descriptor, at: counter)
            generation = nil
        }
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
        return Self.count(descriptor, at: counter) == generation
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

    /// Adds one to the counter at `offset`, under the lock of its second byte.
    private static func bump(_ descriptor: Int32, at offset: Int64) {
        _ = procflow_lock_range(descriptor, offset + 1, 1, Kind.exclusive.rawValue, 1)
        defer { _ = procflow_lock_range(descriptor, offset + 1, 1, Kind.unlocked.rawValue, 0) }
        var count = read(descriptor, at: offset) &+ 1
        _ = pwrite(descriptor, &count, 8, off_t(offset))
    }

    /// The counter at `offset`, read under the lock of its second byte.
    private static func count(_ descriptor: Int32, at offset: Int64) -> UInt64 {
        _ = procflow_lock_range(descriptor, offset + 1, 1, Kind.shared.rawValue, 1)
        defer { _ = procflow_lock_range(descriptor, offset + 1, 1, Kind.unlocked.rawValue, 0) }
        return read(descriptor, at: offset)
    }

    /// The counter at `offset` (0 where nothing was written).
    private static func read(_ descriptor: Int32, at offset: Int64) -> UInt64 {
        var count: UInt64 = 0
        return pread(descriptor, &count, 8, off_t(offset)) == 8 ? count : 0
    }
}

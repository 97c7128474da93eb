import CProcflow
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The records a run makes, kept encoded rather than as values, and once they pass a buffer's
/// worth, in a file of the state directory's that no other process can open (made without a
/// name, or unlinked once open, and private to the user): what a 100,000-step run learnt was
/// 420 bytes a step held to its end as ``StepRecord`` values (their lists of sources and
/// outputs, each an array of its own), to be written into the index when it ends. A run of a
/// few steps (an edit run) stays within the buffer, and makes no file.
///
/// A record is appended once and read back when asked for (the run's snapshot, the index's
/// save), from the buffer or from the file; reading in file order, as a save does, reads the
/// file a window at a time. Where the file cannot be made or written, the records stay in the
/// buffer: nothing is lost, the memory is not saved. A record that cannot be read back (the
/// file failed under it) is no record: its step runs next time.
final class RecordSpill: @unchecked Sendable {
    // @unchecked Sendable: every mutable part lives in `state`, a `Locked` mutex.

    private struct State {
        /// Bytes not yet written to the file, the first at ``written``.
        var buffer: [UInt8] = []
        /// How many bytes the file holds.
        var written = 0
        var descriptor: Int32 = -1
        /// Whether the file could not be made or written: the buffer keeps what follows.
        var held = false
        /// The last bytes read back from the file, and where they start in it.
        var window: [UInt8] = []
        var windowStart = 0
    }

    /// Where a record is: its first byte, and how many bytes it takes.
    struct Place: Sendable, Equatable {
        let offset: Int
        let length: Int32
    }

    /// The directory the file is made in: the state directory's temporary one, on the disk
    /// the state is on (not `/tmp`, which may be memory).
    private let directory: String
    /// How many bytes are buffered before they are written.
    private let bufferSize: Int
    private let state = Locked(State())

    /// Records to spill into a file made in `directory` once `bufferSize` bytes are buffered.
    init(directory: String, bufferSize: Int) {
        self.directory = directory
        self.bufferSize = bufferSize
    }

    deinit {
        let descriptor = state.withLock { $0.descriptor }
        if descriptor >= 0 { close(descriptor) }
    }

    /// Keeps `record`; returns where it is.
    func append(_ record: StepRecord) -> Place {
        var writer = BinaryWriter(
            capacity: 256 + 120 * (record.sources.count + record.outputs.count))
        record.write(to: &writer)
        let bytes = writer.finished()
        return state.withLock { state in
            let place = Place(
                offset: state.written + state.buffer.count, length: Int32(clamping: bytes.count))
            if state.buffer.isEmpty, !state.held { state.buffer.reserveCapacity(bufferSize) }
            state.buffer.append(contentsOf: bytes)
            if state.buffer.count >= bufferSize, !state.held { flush(&state) }
            return place
        }
    }

    /// The record at `place`, or `nil` if it cannot be read back.
    func record(at place: Place) -> StepRecord? {
        state.withLock { state in
            let length = Int(place.length)
            if place.offset >= state.written {
                let start = place.offset - state.written
                guard start + length <= state.buffer.count else { return nil }
                return Self.decode(state.buffer, from: start)
            }
            let inWindow =
                place.offset >= state.windowStart
                && place.offset + length <= state.windowStart + state.window.count
            if !inWindow {
                guard
                    case .success(let window) = POSIXIO.read(
                        state.descriptor,
                        count: min(max(length, bufferSize), state.written - place.offset),
                        at: place.offset),
                    window.count >= length
                else { return nil }
                state.window = window
                state.windowStart = place.offset
            }
            return Self.decode(state.window, from: place.offset - state.windowStart)
        }
    }

    /// How many bytes of records are held in memory, not in the file.
    var bufferedBytes: Int { state.withLock { $0.buffer.count } }

    /// How many bytes of records the file holds.
    var spilledBytes: Int { state.withLock { $0.written } }

    /// The file's permission bits and its count of names, once it is made.
    var file: (permissions: mode_t, links: Int)? {
        state.withLock { state in
            var status = stat()
            guard state.descriptor >= 0, fstat(state.descriptor, &status) == 0 else { return nil }
            return (status.st_mode & 0o7777, Int(status.st_nlink))
        }
    }

    private static func decode(_ bytes: [UInt8], from offset: Int) -> StepRecord? {
        bytes.withUnsafeBytes { buffer in
            var reader = BinaryReader(buffer, from: offset)
            return try? StepRecord(from: &reader)
        }
    }

    /// Writes the buffer to the file, making it first; on failure, keeps buffering.
    private func flush(_ state: inout State) {
        if state.descriptor < 0 {
            state.descriptor = Self.makeFile(in: directory)
            guard state.descriptor >= 0 else {
                state.held = true
                return
            }
        }
        var failed = false
        state.buffer.withUnsafeBytes { bytes in
            do throws(POSIXIO.Failure) {
                try POSIXIO.write(bytes, to: state.descriptor, at: state.written)
            } catch {
                failed = true
            }
        }
        // A write that failed part way leaves the file's end unknown: what it was given stays
        // in the buffer, and so does what follows.
        guard !failed else {
            state.held = true
            return
        }
        state.written += state.buffer.count
        state.buffer.removeAll(keepingCapacity: true)
    }

    /// A new file in `directory`, readable by this process only and by no name: made unnamed
    /// where the file system can, else made private under a name of its own and unlinked at
    /// once. -1 if neither can be done.
    private static func makeFile(in directory: String) -> Int32 {
        guard POSIXIO.makeDirectories(directory, mode: StateDirectory.directoryMode) else {
            return -1
        }
        let unnamed = procflow_open_unnamed(directory, StateDirectory.fileMode)
        if unnamed >= 0 { return unnamed }
        let path = "\(directory)/records-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let named = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, StateDirectory.fileMode)
        if named >= 0 { unlink(path) }
        return named
    }
}

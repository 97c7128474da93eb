/// What procflow remembers of one workflow: each step's last successful run.
///
/// Its file is a base, the index as a run wrote it whole, followed by the entries runs
/// appended since: each the records of the steps one run changed, with their own length and
/// checksum. A run that changed three records of a large workflow appends them rather than
/// writing every record again; the file is written whole again (compacted) when its entries
/// pass half of its base, or when a run must drop or merge records.
struct StateIndex: Sendable {
    var steps = DenseTable<String, StepRecord>()
    /// About how many bytes the store takes, counting what runs added since it was last
    /// measured: when it passes the bound, the store is pruned.
    var storeSize: Int64 = 0

    /// The format version of an index file that entries can be appended to; an index of
    /// ``StateFile/version`` (written whole, without a base length) is read too.
    static let appendableVersion: UInt32 = 3

    /// The index in its file format: a base without entries.
    func encoded() -> [UInt8] {
        var writer = BinaryWriter(capacity: StateFile.envelopeSize + 64 + 512 * steps.count)
        encodeBase(into: &writer) { _ in }
        return StateFile.wrapAppendable(
            writer.finished(), as: .index, version: Self.appendableVersion)
    }

    /// Writes the bytes ``encoded()`` makes to `descriptor` (a new file) in pieces, rather
    /// than held whole (33 MB at 100,000 steps, at the end of the run, when its memory is at
    /// its highest).
    ///
    /// - Returns: how many bytes it wrote.
    func write(to descriptor: Int32, piece: Int = StateFile.piece) throws(POSIXIO.Failure) -> Int {
        try StateFile.write(
            .index, version: Self.appendableVersion, appendable: true, to: descriptor,
            piece: piece, encode: encodeBase)
    }

    /// Encodes the index's base into `writer`, calling `pause` after each record.
    private func encodeBase(into writer: inout BinaryWriter, pause: (inout BinaryWriter) -> Void) {
        writer.write(storeSize)
        writer.write(UInt32(steps.count))
        for (id, record) in steps {
            writer.write(id)
            record.write(to: &writer)
            pause(&writer)
        }
    }

    /// The entry that records `changes` (a step's record, or `nil` where its record is
    /// dropped) and `stored` more bytes in the store, to append to an index's file.
    static func entry(_ changes: [(id: String, record: StepRecord?)], stored: Int64) -> [UInt8] {
        var writer = BinaryWriter(capacity: 16 + 1024 * changes.count)
        writer.write(stored)
        writer.write(UInt32(changes.count))
        for (id, record) in changes {
            writer.write(id)
            writer.write(record != nil)
            record?.write(to: &writer)
        }
        return StateFile.appendedEntry(writer.bytes)
    }

    /// Reads an index from its file format: its base and the entries appended to it, up to
    /// the first that is not whole (torn by a crash, or being written): its records are not
    /// known.
    ///
    /// - Throws: a ``StateFile/Problem`` when the base is damaged or of another version.
    init(decoding bytes: [UInt8]) throws(StateFile.Problem) {
        self = try Self.decoding(bytes).index
    }

    /// The index `bytes` hold, and the layout of its file.
    ///
    /// - Throws: a ``StateFile/Problem`` when the base is damaged or of another version.
    static func decoding(_ bytes: [UInt8]) throws(StateFile.Problem) -> (
        index: StateIndex, layout: StateFile.Layout
    ) {
        let (index, layout) = try StateFile.unwrapAppendable(
            bytes, as: .index, version: appendableVersion
        ) { reader throws(BinaryReader.Truncated) in
            var index = StateIndex()
            index.storeSize = try reader.int64()
            let stepCount = try reader.count(minimumSize: 100)
            index.steps.reserveCapacity(stepCount)
            for _ in 0..<stepCount {
                let id = try reader.string()
                index.steps[id] = try StepRecord(from: &reader)
            }
            return index
        } applying: { (index: inout StateIndex, reader) throws(BinaryReader.Truncated) in
            // Read whole before any is applied: a torn entry changes nothing.
            let stored = try reader.int64()
            let count = try reader.count(minimumSize: 5)
            var changes: [(String, StepRecord?)] = []
            changes.reserveCapacity(count)
            for _ in 0..<count {
                let id = try reader.string()
                changes.append((id, try reader.bool() ? try StepRecord(from: &reader) : nil))
            }
            guard reader.isAtEnd else { throw BinaryReader.Truncated() }
            index.storeSize += stored
            for (id, record) in changes { index.steps[id] = record }
        }
        return (index, layout)
    }

    init() {}
}

/// What procflow remembers of one workflow: each step's last successful run.
///
/// Its file is a base, the index as a run wrote it whole, followed by the entries runs
/// appended since: each the records of the steps one run changed, with their own length and
/// checksum. A run that changed three records of a large workflow appends them rather than
/// writing every record again; the file is written whole again (compacted) when its entries
/// pass half of its base, or when a run must drop or merge records.
struct StateIndex: Sendable {
    var steps = IndexRecords()
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
        var records = changes.makeIterator()
        return entry(changes.map(\.id), stored: stored) { _ in records.next()!.record }
    }

    /// The entry that records the steps `ids` with the records `record` gives (`nil` where a
    /// step's record is dropped), asked for one at a time, in order: a run's records are made
    /// from their encoding as the entry is written, not all at once beside it.
    static func entry(_ ids: [String], stored: Int64, record: (String) -> StepRecord?) -> [UInt8] {
        var writer = BinaryWriter(capacity: 16 + 512 * min(ids.count, 256))
        writer.write(stored)
        writer.write(UInt32(ids.count))
        for id in ids {
            let record = record(id)
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
        // The records are passed over, field by field, and found where they are in `bytes`
        // (which the readers are parts of) when asked for.
        var read: Result<(index: StateIndex, layout: StateFile.Layout), StateFile.Problem>?
        bytes.withUnsafeBytes { whole in
            read = Result { () throws(StateFile.Problem) in
                try unwrap(bytes, whole: whole)
            }
        }
        return try read!.get()
    }

    /// The index in `bytes`, whose bytes are `whole`, and its file's layout.
    private static func unwrap(_ bytes: [UInt8], whole: UnsafeRawBufferPointer)
        throws(StateFile.Problem) -> (index: StateIndex, layout: StateFile.Layout)
    {
        try StateFile.unwrapAppendable(
            bytes, as: .index, version: appendableVersion
        ) { reader throws(BinaryReader.Truncated) in
            var index = StateIndex()
            index.steps = IndexRecords(file: bytes)
            index.storeSize = try reader.int64()
            let stepCount = try reader.count(minimumSize: 100)
            index.steps.reserveCapacity(stepCount)
            for _ in 0..<stepCount {
                let id = try reader.string()
                let offset = reader.offset(in: whole)
                index.steps.noteEncoded(id, at: offset, naming: try StepRecord.skip(&reader))
            }
            return index
        } applying: { (index: inout StateIndex, reader) throws(BinaryReader.Truncated) in
            // Read whole before any is applied: a torn entry changes nothing.
            let stored = try reader.int64()
            let count = try reader.count(minimumSize: 5)
            var changes: [(id: String, offset: Int?, files: Int)] = []
            changes.reserveCapacity(count)
            for _ in 0..<count {
                let id = try reader.string()
                let offset = reader.offset(in: whole)
                let present = try reader.bool()
                changes.append(
                    present
                        ? (id, offset + 1, try StepRecord.skip(&reader)) : (id, nil, 0))
            }
            guard reader.isAtEnd else { throw BinaryReader.Truncated() }
            index.storeSize += stored
            for change in changes {
                if let offset = change.offset {
                    index.steps.noteEncoded(change.id, at: offset, naming: change.files)
                } else {
                    index.steps.noteRemoved(change.id)
                }
            }
        }
    }

    init() {}
}

/// The records of an index by step id. Those read from its file stay as they are in it, a
/// place in its bytes, until one is asked for: an edit run of a 300-step workflow decides two
/// or three steps, and making every record (thousands of paths) took most of the time it
/// spent reading the state. Those a run sets, once it spills them (``spill(into:bufferSize:)``),
/// are encoded as they are set, and made each time they are asked for.
struct IndexRecords: Sendable {
    fileprivate enum Slot: Sendable {
        /// Made: out of line, so that a slot of a record not made takes 16 bytes, not 128.
        indirect case record(StepRecord)
        /// Where its encoding starts in ``file``.
        case encoded(Int)
        /// Where it is in ``spill``: one this run made, once it spills them.
        case spilled(RecordSpill.Place)
    }

    private var slots = DenseTable<String, Slot>()
    /// The bytes of the index file the encoded records are in; let go of once every record
    /// read from it is made (a run that decides every step of a large workflow).
    private var file: [UInt8]
    /// Where the records set from now on are kept, encoded, once
    /// ``spill(into:bufferSize:)`` is called.
    private var spill: RecordSpill?
    /// How many of ``slots`` are encoded.
    private var encodedCount = 0
    /// About how many files the records read from the file name (for a record replaced by a
    /// later entry, both count): the room the run's tables of files are made with.
    private(set) var namedFiles = 0

    init() {
        file = []
    }

    /// Records to be read from `file`, the bytes of an index file.
    fileprivate init(file: [UInt8]) {
        self.file = file
    }

    /// Notes that the record of `id` is encoded at `offset` in the file, naming `files` files.
    fileprivate mutating func noteEncoded(_ id: String, at offset: Int, naming files: Int) {
        if !isEncoded(id) { encodedCount += 1 }
        slots[id] = .encoded(offset)
        namedFiles += files
    }

    /// Notes that an entry of the file removes the record of `id`: the file is kept, as later
    /// entries may be in it.
    fileprivate mutating func noteRemoved(_ id: String) {
        if isEncoded(id) { encodedCount -= 1 }
        slots[id] = nil
    }

    private func isEncoded(_ id: String) -> Bool {
        guard let place = slots.place(of: id), case .encoded = slots[place: place] else {
            return false
        }
        return true
    }

    /// Notes that an encoded record is one no more.
    private mutating func oneLessEncoded() {
        encodedCount -= 1
        if encodedCount == 0 { file = [] }
    }

    var count: Int { slots.count }

    var isEmpty: Bool { slots.isEmpty }

    /// Whether it holds the bytes of the file its records were read from.
    var holdsFile: Bool { !file.isEmpty }

    /// How many records it holds without growing.
    var capacity: Int { slots.capacity }

    /// The ids of its records.
    var keys: [String] { slots.keys }

    /// Makes room for `capacity` records in all.
    mutating func reserveCapacity(_ capacity: Int) {
        slots.reserveCapacity(capacity)
    }

    /// Keeps the records set from now on encoded, past `bufferSize` bytes in a file of
    /// `directory` that only this process can open (``RecordSpill``), rather than as values;
    /// they are made again each time they are asked for. Copies of these records share it.
    mutating func spill(into directory: String, bufferSize: Int = 64 << 10) {
        if spill == nil { spill = RecordSpill(directory: directory, bufferSize: bufferSize) }
    }

    /// Where the records set since ``spill(into:bufferSize:)`` are kept.
    var spilled: RecordSpill? { spill }

    /// How many bytes a record's slot takes (a test's hook).
    static var slotSize: Int { MemoryLayout<Slot>.stride }

    /// The record of `id`, made from the file each time it is asked for here (see
    /// ``record(_:)``); setting `nil` removes it.
    subscript(id: String) -> StepRecord? {
        get { slots[id].flatMap(made) }
        set {
            if isEncoded(id) { oneLessEncoded() }
            guard let newValue else {
                slots[id] = nil
                return
            }
            slots[id] = spill.map { .spilled($0.append(newValue)) } ?? .record(newValue)
        }
    }

    /// The record of `id`, made from the file once: kept made for the next time (one spilled
    /// is made each time).
    mutating func record(_ id: String) -> StepRecord? {
        guard let place = slots.place(of: id) else { return nil }
        guard case .encoded = slots[place: place] else { return made(slots[place: place]) }
        let record = made(slots[place: place])
        if let record {
            slots[place: place] = .record(record)
        } else {
            // One the file cannot give (never, once it was passed over whole) is no record.
            slots[id] = nil
        }
        oneLessEncoded()
        return record
    }

    /// Makes every record still encoded, and lets the file's bytes go.
    mutating func makeEveryRecord() {
        guard holdsFile else { return }
        var place = 0
        while place < slots.count {
            guard case .encoded = slots[place: place] else {
                place += 1
                continue
            }
            if let record = made(slots[place: place]) {
                slots[place: place] = .record(record)
                place += 1
            } else {
                // One the file cannot give is no record; the last moves into its place.
                slots[slots.keys[place]] = nil
            }
        }
        encodedCount = 0
        file = []
    }

    private func made(_ slot: Slot) -> StepRecord? {
        switch slot {
        case .record(let record): return record
        case .encoded(let offset):
            return file.withUnsafeBytes { buffer in
                var reader = BinaryReader(buffer, from: offset)
                return try? StepRecord(from: &reader)
            }
        case .spilled(let place): return spill?.record(at: place)
        }
    }

    /// The records whose ids `isIncluded` accepts, those in the file left there.
    func filter(ids isIncluded: (String) -> Bool) -> IndexRecords {
        var kept = IndexRecords(file: file)
        kept.namedFiles = namedFiles
        kept.spill = spill
        for (id, slot) in slots where isIncluded(id) {
            kept.slots[id] = slot
            if case .encoded = slot { kept.encodedCount += 1 }
        }
        if kept.encodedCount == 0 { kept.file = [] }
        return kept
    }
}

extension IndexRecords: Sequence {
    typealias Element = (key: String, value: StepRecord)

    /// Each record, made as it comes.
    struct Iterator: IteratorProtocol {
        fileprivate let records: IndexRecords
        fileprivate var slots: DenseTable<String, Slot>.Iterator

        mutating func next() -> Element? {
            while let (id, slot) = slots.next() {
                if let record = records.made(slot) { return (id, record) }
            }
            return nil
        }
    }

    func makeIterator() -> Iterator {
        Iterator(records: self, slots: slots.makeIterator())
    }

    var underestimatedCount: Int { count }
}

extension IndexRecords: ExpressibleByDictionaryLiteral {
    init(dictionaryLiteral elements: (String, StepRecord)...) {
        self.init()
        reserveCapacity(elements.count)
        for (id, record) in elements { self[id] = record }
    }
}

extension IndexRecords: Equatable {
    /// The same ids with the same records, in any order, wherever they are kept.
    static func == (left: IndexRecords, right: IndexRecords) -> Bool {
        left.count == right.count && left.allSatisfy { right[$0.key] == $0.value }
    }
}

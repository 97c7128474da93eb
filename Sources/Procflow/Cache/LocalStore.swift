/// The state directory as a ``ResultStore``: histories of runs in `history/`, contents in
/// `objects/` (``ContentStore``).
struct LocalStore: ResultStore {
    /// The most runs a history keeps for one set of inputs.
    static let historyLimit = 8

    let directory: StateDirectory
    private let contents: ContentStore

    /// The store of `directory`.
    init(directory: StateDirectory) {
        self.directory = directory
        contents = directory.store
    }

    func records(for key: Digest) -> [StepRecord] {
        guard case .success(let bytes) = POSIXIO.readFile(directory.history(of: key)) else {
            return []
        }
        return (try? StateFile.unwrap(bytes, as: .history, Self.readRecords)) ?? []
    }

    private static func readRecords(_ reader: inout BinaryReader) throws(BinaryReader.Truncated)
        -> [StepRecord]
    {
        var records: [StepRecord] = []
        for _ in 0..<(try reader.count(minimumSize: 100)) {
            records.append(try StepRecord(from: &reader))
        }
        return records
    }

    func keep(_ record: StepRecord) throws(CacheProblem) {
        let key = record.key
        var records = [record] + self.records(for: key).filter { $0 != record }
        records = Array(records.prefix(Self.historyLimit))
        var writer = BinaryWriter()
        writer.write(UInt32(records.count))
        for record in records { record.write(to: &writer) }
        try StateDirectory.write(
            StateFile.wrap(writer.finished(), as: .history), to: directory.history(of: key),
            temporary: directory.temporary)
    }

    func contains(_ digest: Digest) -> Bool {
        contents.contains(digest)
    }

    func add(fileAt path: String) throws(CacheProblem) -> ContentStore.Stored {
        try directory.prepare()
        return try contents.add(fileAt: path)
    }

    /// Reads the file at `path` and keeps its content, unless it has more than `limit` bytes
    /// (``ContentStore/readKeepingContent(fileAt:upTo:)``).
    func readKeepingContent(fileAt path: String, upTo limit: Int) throws(CacheProblem) -> (
        stored: ContentStore.Stored, content: [UInt8]
    )? {
        try contents.readKeepingContent(fileAt: path, upTo: limit)
    }

    /// Stores `content`, read earlier and hashed to `digest` (``ContentStore/add(_:as:)``);
    /// returns the bytes added.
    func add(_ content: [UInt8], as digest: Digest) throws(CacheProblem) -> Int64 {
        try directory.prepare()
        return try contents.add(content, as: digest)
    }

    func restore(_ digest: Digest, to path: String, permissions: UInt32) throws(CacheProblem) {
        try contents.restore(digest, to: path, permissions: permissions)
    }

    /// Keeps the content `digest` that `fill` writes (``ContentStore/receive(_:fill:)``).
    func receive(_ digest: Digest, fill: (Int32) -> Bool) throws(CacheProblem) -> Bool {
        try directory.prepare()
        return try contents.receive(digest, fill: fill)
    }

    func location(of digest: Digest) -> String {
        contents.path(of: digest)
    }
}

/// What procflow remembers of one workflow: each step's last successful run, and the digest
/// of each file it read or made, with the `stat` it had then, so that an unchanged file is
/// not read again.
struct StateIndex: Sendable {
    /// A file's digest, and its status when it was read.
    struct FileEntry: Sendable, Equatable {
        var status: FileStatus
        var digest: Digest
    }

    var files: [String: FileEntry] = [:]
    var steps: [String: StepRecord] = [:]
    /// About how many bytes the store takes, counting what runs added since it was last
    /// measured: when it passes the bound, the store is pruned.
    var storeSize: Int64 = 0

    /// The index in its file format.
    func encoded() -> [UInt8] {
        var writer = BinaryWriter()
        writer.write(storeSize)
        writer.write(UInt32(files.count))
        for (path, entry) in files {
            writer.write(path)
            writer.write(entry.status.size)
            writer.write(entry.status.modified)
            writer.write(entry.status.changed)
            writer.write(entry.status.inode)
            writer.write(entry.status.mode)
            writer.write(entry.digest)
        }
        writer.write(UInt32(steps.count))
        for (id, record) in steps {
            writer.write(id)
            record.write(to: &writer)
        }
        return StateFile.wrap(writer.bytes, as: .index)
    }

    /// Reads an index from its file format.
    ///
    /// - Throws: a ``StateFile/Problem`` when it is damaged or of another version.
    init(decoding bytes: [UInt8]) throws(StateFile.Problem) {
        self = try StateFile.unwrap(bytes, as: .index) { reader throws(BinaryReader.Truncated) in
            var index = StateIndex()
            index.storeSize = try reader.int64()
            let fileCount = try reader.count(minimumSize: 72)
            index.files.reserveCapacity(fileCount)
            for _ in 0..<fileCount {
                let path = try reader.string()
                let status = FileStatus(
                    size: try reader.int64(), modified: try reader.int64(),
                    changed: try reader.int64(), inode: try reader.uint64(),
                    mode: try reader.uint32())
                index.files[path] = FileEntry(status: status, digest: try reader.digest())
            }
            let stepCount = try reader.count(minimumSize: 100)
            index.steps.reserveCapacity(stepCount)
            for _ in 0..<stepCount {
                let id = try reader.string()
                index.steps[id] = try StepRecord(from: &reader)
            }
            return index
        }
    }

    init() {}
}

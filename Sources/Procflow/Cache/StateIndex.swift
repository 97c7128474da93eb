/// What procflow remembers of one workflow: each step's last successful run.
struct StateIndex: Sendable {
    var steps: [String: StepRecord] = [:]
    /// About how many bytes the store takes, counting what runs added since it was last
    /// measured: when it passes the bound, the store is pruned.
    var storeSize: Int64 = 0

    /// The index in its file format.
    func encoded() -> [UInt8] {
        var writer = BinaryWriter(capacity: 64 + 512 * steps.count)
        writer.write(storeSize)
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

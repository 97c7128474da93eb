/// How long each step of one workflow took when it last ran and succeeded, kept in the state
/// directory (`NAME-DIGEST.durations`: a ``StateFile`` of ids and seconds, read without a JSON
/// parse at the end of every run) for the live panel to estimate the next run's time left
/// along the critical path.
struct StepDurationsFile {
    /// The most bytes read back: a larger (damaged or foreign) file is ignored.
    static let maximumSize = 16 << 20

    let directory: StateDirectory
    let path: String

    /// The durations file of the workflow file `workflowFile` in `directory`.
    init(directory: StateDirectory, workflowFile: String) {
        self.directory = directory
        path = directory.durations(for: workflowFile)
    }

    /// The durations kept, by step id; empty when there are none, or the file is not one.
    func load() -> [String: Double] {
        guard case .success(let bytes) = POSIXIO.readFile(path), bytes.count <= Self.maximumSize,
            let durations = try? StateFile.unwrap(bytes, as: .durations, Self.read)
        else { return [:] }
        return durations
    }

    private static func read(_ reader: inout BinaryReader) throws(BinaryReader.Truncated)
        -> [String: Double]
    {
        let count = try reader.count(minimumSize: 12)
        var durations: [String: Double] = [:]
        durations.reserveCapacity(count)
        for _ in 0..<count {
            let id = try reader.string()
            let seconds = Double(bitPattern: try reader.uint64())
            if seconds.isFinite, seconds >= 0 { durations[id] = seconds }
        }
        return durations
    }

    /// Keeps `durations` (the steps that ran and succeeded now), over what was kept, for the
    /// steps in the run `ran`, and for those in `outside`, the file's steps the run left out
    /// (a run of some steps), with their instances: steps gone from the file are dropped.
    /// An estimate needs no precision: the file is left as it is when it keeps the same steps
    /// and each new duration is within a fifth (or 50 ms) of the one kept, as most runs find.
    func record(_ durations: [String: Double], ran: Set<String>, outside: Set<String>)
        throws(CacheProblem)
    {
        let kept = load()
        var all = kept
        for (id, seconds) in durations { all[id] = (seconds * 1000).rounded() / 1000 }
        all = all.filter {
            ran.contains($0.key) || outside.contains(ForEach.stepID(ofInstance: $0.key))
        }
        let nearlyKept =
            all.count == kept.count
            && all.allSatisfy { id, seconds in
                kept[id].map { abs($0 - seconds) <= max(0.05, $0 / 5) } ?? false
            }
        if nearlyKept { return }
        try directory.prepare()
        var writer = BinaryWriter()
        writer.write(UInt32(all.count))
        for (id, seconds) in all {
            writer.write(id)
            writer.write(seconds.bitPattern)
        }
        try StateDirectory.write(
            StateFile.wrap(writer.finished(), as: .durations), to: path,
            temporary: directory.temporary)
    }
}

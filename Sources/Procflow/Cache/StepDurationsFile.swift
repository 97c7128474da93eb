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
    func record(_ durations: [String: Double], ran: Set<String>, outside: Set<String>)
        throws(CacheProblem)
    {
        var run = RunDurations()
        run.reserveCapacity(ran.count)
        for id in ran { run[id] = .some(durations[id]) }
        // A duration of a step not in the run is kept only if the run left its step out.
        for (id, seconds) in durations
        where !ran.contains(id) && outside.contains(ForEach.stepID(ofInstance: id)) {
            run[id] = seconds
        }
        try record(run, outside: outside)
    }

    /// Each step of a run by id, with how long it took if it ran and succeeded now.
    typealias RunDurations = DenseTable<String, Double?>

    /// Keeps the durations of `run` (the steps that ran and succeeded now), over what was
    /// kept, for the steps in `run`, and for those in `outside`, the file's steps the run
    /// left out (a run of some steps), with their instances: steps gone from the file are
    /// dropped. An estimate needs no precision: the file is left as it is when it keeps the
    /// same steps and each new duration is within a fifth (or 50 ms) of the one kept, as
    /// most runs find.
    func record(_ run: RunDurations, outside: Set<String>) throws(CacheProblem) {
        let kept = load()
        func keeps(_ id: String) -> Bool {
            run.place(of: id) != nil || outside.contains(ForEach.stepID(ofInstance: id))
        }
        // The file's entries, the new durations first, then the kept ones of steps without
        // one: walked, not gathered in tables of their own (at 100,000 steps, three tables
        // and the file whole twice, at the end of the run, where its memory is highest).
        func entries(_ body: (String, Double) -> Void) {
            for (id, seconds) in zip(run.keys, run.values) {
                if let seconds { body(id, Self.rounded(seconds)) }
            }
            for (id, seconds) in kept where (run[id] ?? nil) == nil && keeps(id) {
                body(id, seconds)
            }
        }
        var count = 0
        var nearlyKept = true
        entries { id, seconds in
            count += 1
            nearlyKept =
                nearlyKept && kept[id].map { abs($0 - seconds) <= max(0.05, $0 / 5) } ?? false
        }
        if nearlyKept, count == kept.count { return }
        try write(count: count, entries)
    }

    /// Keeps the durations of a run's steps that ran and succeeded, given by `durations` (each
    /// step once), where none are kept yet: written as they come, without a table of the run's
    /// steps (a first run of 100,000 steps made one at its end, where its memory is highest).
    ///
    /// - Returns: `false`, having done nothing, if durations are kept: a run's are then
    ///   merged with them (``record(_:outside:)``).
    func recordFirst(_ durations: ((String, Double) -> Void) -> Void) throws(CacheProblem) -> Bool {
        guard !FileSystem.exists(path) else { return false }
        var count = 0
        durations { _, _ in count += 1 }
        guard count > 0 else { return true }
        try write(count: count) { body in
            withoutActuallyEscaping(body) { body in
                durations { id, seconds in body(id, Self.rounded(seconds)) }
            }
        }
        return true
    }

    /// Writes the file: `count` entries, given by `entries`.
    private func write(count: Int, _ entries: ((String, Double) -> Void) -> Void)
        throws(CacheProblem)
    {
        try directory.prepare()
        try StateDirectory.write(to: path, temporary: directory.temporary) {
            descriptor throws(POSIXIO.Failure) in
            _ = try StateFile.write(
                .durations, version: StateFile.version, appendable: false, to: descriptor,
                piece: StateFile.piece
            ) { writer, pause in
                writer.write(UInt32(count))
                withoutActuallyEscaping(pause) { pause in
                    entries { id, seconds in
                        writer.write(id)
                        writer.write(seconds.bitPattern)
                        pause(&writer)
                    }
                }
            }
        }
    }

    /// Seconds kept to the millisecond.
    private static func rounded(_ seconds: Double) -> Double {
        (seconds * 1000).rounded() / 1000
    }
}

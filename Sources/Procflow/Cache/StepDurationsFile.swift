/// How long each step of one workflow took when it last ran and succeeded, kept in the state
/// directory (`NAME-DIGEST.durations`, JSON: `{"version": 1, "durations": {"id": seconds}}`)
/// for the live panel to estimate the next run's time left along the critical path.
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
        guard FileSystem.exists(path), case .success(let bytes) = POSIXIO.readFile(path),
            bytes.count <= Self.maximumSize,
            let document = try? JSONParser.parse(bytes).plain,
            case .object(let fields) = document, fields["version"] == .number(1),
            case .object(let entries)? = fields["durations"]
        else { return [:] }
        var durations: [String: Double] = [:]
        for (id, value) in entries {
            if case .number(let seconds) = value, seconds.isFinite, seconds >= 0 {
                durations[id] = seconds
            }
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
        let document: JSONValue = .object([
            "version": .number(1), "durations": .object(all.mapValues(JSONValue.number)),
        ])
        try StateDirectory.write(
            Array(JSONWriter.string(document).utf8), to: path, temporary: directory.temporary)
    }
}

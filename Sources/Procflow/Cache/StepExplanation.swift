/// Why an incremental step runs, in the words `--explain` and the reports use: "source
/// lparser.h changed", "command changed", "lapi.o missing".
enum StepExplanation {
    /// Why `step`, known now as `current`, must run when its last run was `latest`: what
    /// changed, the first three things named.
    static func reason(
        _ current: StepRecord, against latest: StepRecord, of step: IncrementalStep,
        files: FileDigests
    ) -> String {
        var reasons: [String] = []
        if current.definition != latest.definition {
            reasons.append(definitionChange(current, against: latest, of: step))
        }
        if current.directory != latest.directory { reasons.append("working directory changed") }
        if current.environment != latest.environment {
            let entries = compare(current.environmentEntries, with: latest.environmentEntries)
            reasons += entries.isEmpty ? ["environment changed"] : entries
        }
        let before = Dictionary(latest.inputs.map { ($0.name, $0.digest) }) { first, _ in first }
        for input in current.inputs where before[input.name] != input.digest {
            reasons.append(
                input.name == "stdin" ? "its input changed" : "input \(input.name) changed")
        }
        reasons += sourceChanges(current.sources, from: latest.sources, display: step.display)
        if reasons.isEmpty {
            for file in latest.discovered {
                let seen = files.observe(
                    file.path, status: files.status(of: file.path), recorded: file)
                guard seen.digest != file.digest else { continue }
                reasons.append(
                    seen.digest == nil
                        ? "source \(step.display(file.path)) was removed"
                        : "source \(step.display(file.path)) changed")
            }
        }
        guard !reasons.isEmpty else { return "its earlier outcome could not be put back" }
        // Joined by hand: a generic `joined` costs a quarter of a million instructions the
        // first time it runs, in the runtime's lookups of its types (in every run with a step
        // to run).
        var shown = reasons[0]
        for reason in reasons.dropFirst().prefix(2) { shown += "; " + reason }
        return reasons.count > 3 ? "\(shown) (and \(reasons.count - 3) more)" : shown
    }

    /// The name of the entry (among a record's ``StepRecord/environmentEntries``, which serve
    /// explanations only) that holds the digest of the step's definition without its
    /// `cacheKey` values.
    static let definitionWithoutKey = "definition without cacheKey"

    /// Why a definition changed: the step itself ("command changed"), or only what its
    /// `cacheKey` gives ("cacheKey changed": a command's output, a file, a text); the step's
    /// words when the earlier record cannot tell (it kept no definition without its key).
    private static func definitionChange(
        _ current: StepRecord, against latest: StepRecord, of step: IncrementalStep
    ) -> String {
        func withoutKey(_ record: StepRecord) -> Digest? {
            record.environmentEntries.last { $0.name == definitionWithoutKey }?.digest
        }
        guard let now = withoutKey(current), let before = withoutKey(latest), now == before
        else { return step.definitionName }
        return "cacheKey changed"
    }

    /// What changed between two lists of environment entries: "variable cflags changed",
    /// "env CC is new", "dotenv .env: TOKEN is gone". Nothing when the earlier record kept none.
    private static func compare(_ current: [StepRecord.Input], with earlier: [StepRecord.Input])
        -> [String]
    {
        let current = current.filter { $0.name != definitionWithoutKey }
        let earlier = earlier.filter { $0.name != definitionWithoutKey }
        guard !earlier.isEmpty else { return [] }
        let before = Dictionary(earlier.map { ($0.name, $0.digest) }) { first, _ in first }
        var reasons: [String] = []
        for entry in current {
            switch before[entry.name] {
            case nil: reasons.append("\(entry.name) is new")
            case let digest? where digest != entry.digest: reasons.append("\(entry.name) changed")
            default: break
            }
        }
        let now = Set(current.map(\.name))
        for entry in earlier where !now.contains(entry.name) {
            reasons.append("\(entry.name) is gone")
        }
        return reasons
    }

    /// What became of the sources of a step between its `earlier` record and the `current`
    /// one, each named as `display` shows its path: new, appeared, missing, changed, then gone.
    static func sourceChanges(
        _ current: [StepRecord.Source], from earlier: [StepRecord.Source],
        display: (String) -> String
    ) -> [String] {
        // A record's sources are sorted by path: then one walk along both lists, naming only
        // what differs (a link's hundreds of objects were each hashed twice and shown once).
        if isSorted(current), isSorted(earlier) {
            var reasons: [String] = []
            var gone: [String] = []
            var next = 0
            for source in current {
                while next < earlier.count, earlier[next].path < source.path {
                    gone.append(earlier[next].path)
                    next += 1
                }
                if next < earlier.count, earlier[next].path == source.path {
                    let old = earlier[next].digest
                    next += 1
                    if let reason = change(
                        of: source.path, from: old, to: source.digest, display: display)
                    {
                        reasons.append(reason)
                    }
                } else {
                    reasons.append("source \(display(source.path)) is new")
                }
            }
            gone += earlier[next...].map(\.path)
            return reasons + gone.map { "source \(display($0)) is gone" }
        }
        let before = Dictionary(earlier.map { ($0.path, $0.digest) }) { first, _ in first }
        var reasons: [String] = []
        for source in current {
            guard let old = before[source.path] else {
                reasons.append("source \(display(source.path)) is new")
                continue
            }
            if let reason = change(of: source.path, from: old, to: source.digest, display: display)
            {
                reasons.append(reason)
            }
        }
        let now = Set(current.map(\.path))
        for source in earlier where !now.contains(source.path) {
            reasons.append("source \(display(source.path)) is gone")
        }
        return reasons
    }

    /// What became of the source at `path`, recorded with `old` and found with `new` (`nil`:
    /// missing); `nil` if nothing did.
    private static func change(
        of path: String, from old: Digest?, to new: Digest?, display: (String) -> String
    ) -> String? {
        switch (old, new) {
        case (nil, .some): return "source \(display(path)) appeared"
        case (.some, nil): return "source \(display(path)) is missing"
        case (let old, let new) where old != new: return "source \(display(path)) changed"
        default: return nil
        }
    }

    /// Whether `sources` are in increasing order of path, none twice.
    private static func isSorted(_ sources: [StepRecord.Source]) -> Bool {
        zip(sources, sources.dropFirst()).allSatisfy { $0.path < $1.path }
    }

    /// What is wrong with generated files that differ from a record and cannot be put back.
    static func describe(_ outputs: [StepRecord.Output], of step: IncrementalStep) -> String {
        let output = outputs[0]
        let name = step.display(output.path)
        let what =
            FileSystem.exists(output.path) ? "\(name) changed since it was made" : "\(name) missing"
        return outputs.count > 1 ? "\(what) (and \(outputs.count - 1) more)" : what
    }
}

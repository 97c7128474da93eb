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
        if current.definition != latest.definition { reasons.append(step.definitionName) }
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
        reasons += compare(current.sources, with: latest.sources, of: step)
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
        let shown = reasons.prefix(3).joined(separator: "; ")
        return reasons.count > 3 ? "\(shown) (and \(reasons.count - 3) more)" : shown
    }

    /// What changed between two lists of environment entries: "variable cflags changed",
    /// "env CC is new", "dotenv .env: TOKEN is gone". Nothing when the earlier record kept none.
    private static func compare(_ current: [StepRecord.Input], with earlier: [StepRecord.Input])
        -> [String]
    {
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

    private static func compare(
        _ current: [StepRecord.Source], with earlier: [StepRecord.Source], of step: IncrementalStep
    ) -> [String] {
        let before = Dictionary(earlier.map { ($0.path, $0.digest) }) { first, _ in first }
        var reasons: [String] = []
        for source in current {
            let name = step.display(source.path)
            switch (before[source.path], source.digest) {
            case (nil, _): reasons.append("source \(name) is new")
            case (.some(nil), .some): reasons.append("source \(name) appeared")
            case (.some(.some), nil): reasons.append("source \(name) is missing")
            case (.some(let old), let new) where old != new:
                reasons.append("source \(name) changed")
            default: break
            }
        }
        let now = Set(current.map(\.path))
        for source in earlier where !now.contains(source.path) {
            reasons.append("source \(step.display(source.path)) is gone")
        }
        return reasons
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

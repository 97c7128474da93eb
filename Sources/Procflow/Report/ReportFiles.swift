import Foundation

/// Writes the reports a run asked for (``ReportFormat``) when it ends — after a failure or an
/// interruption too — each atomically, so that a file is whole or untouched; and in GitHub
/// Actions (`GITHUB_ACTIONS=true`) appends the run's table (``StepSummaryMarkdown``) to the
/// file `GITHUB_STEP_SUMMARY` names.
final class ReportFiles: Reporter, @unchecked Sendable {
    // @unchecked Sendable: the runner calls `report` one event at a time; `record` and
    // `problems` are only touched there, and `failures` is read once the run has ended.

    private let files: [(format: ReportFormat, path: String)]
    private let stepSummary: String?
    /// What is masked in every report.
    private let masker: SecretMasker
    /// What the run did, for the reports; none is kept when there is nothing to write.
    private var record: RunRecord?
    private var problems: [String] = []

    /// - Parameters:
    ///   - graph: the workflow's graph, made only if there is something to write.
    ///   - files: the reports to write, and where.
    ///   - environment: where GitHub Actions is found.
    ///   - masker: the secrets' values, masked in every report.
    init(
        graph: @autoclosure () -> WorkflowGraph, files: [(format: ReportFormat, path: String)],
        environment: [String: String], masker: SecretMasker = SecretMasker(values: [])
    ) {
        self.files = files
        self.masker = masker
        let summary = environment["GITHUB_STEP_SUMMARY"] ?? ""
        stepSummary = environment["GITHUB_ACTIONS"] == "true" && !summary.isEmpty ? summary : nil
        record = files.isEmpty && stepSummary == nil ? nil : RunRecord(graph: graph())
    }

    /// Whether there is anything to write: reports asked for, or a GitHub step summary.
    var isNeeded: Bool { !files.isEmpty || stepSummary != nil }

    /// The reports that could not be written, each a sentence; read once the run has ended.
    var failures: [String] { problems }

    /// Records `event`; writes the reports when it is the run's end.
    func report(_ event: RunEvent) {
        guard record != nil else { return }
        record!.record(event)
        guard case .workflowFinished = event.kind, let record else { return }
        for (format, path) in files {
            do {
                let text = masker.mask(format.render(record))
                try POSIXIO.writeAtomically(Array(text.utf8), to: path)
            } catch {
                problems.append("the \(format.rawValue) report was not written: \(error.message)")
            }
        }
        if let stepSummary {
            append(masker.mask(StepSummaryMarkdown.render(record)), to: stepSummary)
        }
    }

    private func append(_ text: String, to path: String) {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            problems.append(
                "the step summary was not written to \(path): \(String(cString: strerror(errno)))")
            return
        }
        defer { close(descriptor) }
        var text = text
        text.withUTF8 { buffer in
            do throws(POSIXIO.Failure) {
                try POSIXIO.write(UnsafeRawBufferPointer(buffer), to: descriptor)
            } catch {
                problems.append("the step summary was not written to \(path): \(error.message)")
            }
        }
    }
}

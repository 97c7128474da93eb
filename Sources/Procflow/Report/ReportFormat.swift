/// The files `procflow run` writes about a run when asked, each named by its option.
enum ReportFormat: String, CaseIterable, Sendable {
    /// `--junit FILE`: JUnit XML (``JUnitReport``).
    case junit
    /// `--trace FILE`: Chrome Trace Event JSON (``TraceReport``).
    case trace
    /// `--html FILE`: one self-contained HTML page (``HTMLReport``).
    case html
    /// `--summary FILE`: one JSON document (``SummaryReport``).
    case summary

    /// What the option's help says it writes.
    var help: String {
        switch self {
        case .junit: return "Write a JUnit XML report of the run to this file."
        case .trace: return "Write a Chrome trace (for ui.perfetto.dev) of the run to this file."
        case .html: return "Write a self-contained HTML report of the run to this file."
        case .summary: return "Write a JSON summary of the run to this file."
        }
    }

    /// The report of `run`.
    func render(_ run: RunRecord) -> String {
        switch self {
        case .junit: return JUnitReport.render(run)
        case .trace: return TraceReport.render(run)
        case .html: return HTMLReport.render(run)
        case .summary: return SummaryReport.render(run)
        }
    }
}

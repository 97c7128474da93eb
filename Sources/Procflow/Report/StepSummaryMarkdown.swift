/// The run as the Markdown table GitHub Actions shows on a job's summary page, appended to
/// the file `$GITHUB_STEP_SUMMARY` names: a heading with the result, then a row per step
/// (nested steps indented) with its status, duration, attempts and reason.
enum StepSummaryMarkdown {
    /// The summary of `run`.
    static func render(_ run: RunRecord) -> String {
        var text = "### procflow: \(cell(run.name)) \(run.result)"
        if let signal = run.signal { text += " (\(signal))" }
        text += " in \(formatDuration(run.duration))\n\n"
        text += "| Step | Status | Duration | Attempts | Reason |\n"
        text += "| --- | --- | ---: | ---: | --- |\n"
        for step in run.steps {
            let indent = String(repeating: "&nbsp;&nbsp;", count: step.path.count)
            let attempts =
                step.maxAttempts > 1 ? "\(step.attempts.count) of \(step.maxAttempts)" : ""
            text +=
                "| \(indent)`\(step.shown)` | \(step.status.presentation.symbol) \(step.status.rawValue)"
            text += " | \(step.duration.map(formatDuration) ?? "") | \(attempts)"
            text += " | \(cell(step.reason ?? "")) |\n"
        }
        var counts: [String] = []
        for status in StepStatus.allCases {
            let count = run.steps.filter { $0.status == status }.count
            if count > 0 { counts.append("\(count) \(status.rawValue)") }
        }
        return text + "\n" + counts.joined(separator: ", ") + "\n\n"
    }

    /// Text safe in a table cell: no line breaks, pipes escaped, no HTML.
    private static func cell(_ text: String) -> String {
        text.escapingControlCharacters.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "|", with: "\\|")
    }
}

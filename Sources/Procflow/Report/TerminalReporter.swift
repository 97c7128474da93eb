import Foundation

/// The default output: each line of a step's output prefixed with the step's id (coloured per
/// step on a terminal), a line when a step starts, finishes, fails, is skipped, retried or
/// cancelled, and a summary table at the end. On a terminal, a live status line counts what is
/// running, done and pending.
public final class TerminalReporter: Reporter, @unchecked Sendable {
    // @unchecked Sendable: the runner calls `report` one event at a time; `state` is only
    // touched there.

    private struct State {
        var colors: [String: String] = [:]
        var statuses: [String: StepStatus] = [:]
        var statusLineShown = false
    }

    private let console: Console
    private let style: Style
    private let showsStatusLine: Bool
    private var state = State()

    /// - Parameter statusLine: whether to keep a live status line; by default, when standard
    ///   output is a terminal.
    public init(console: Console, statusLine: Bool? = nil) {
        self.console = console
        style = Style(enabled: console.outputIsTerminal && console.allowsColor)
        showsStatusLine = statusLine ?? console.outputIsTerminal
    }

    /// Prints `event` as text (and redraws the status line on a terminal).
    public func report(_ event: RunEvent) {
        var text = ""
        let id = event.step ?? ""
        switch event.kind {
        case .workflowStarted(let name, let steps):
            for step in steps { state.statuses[step] = .pending }
            text = style.bold("procflow: running \(name), \(plural(steps.count, "step"))") + "\n"
        case .stepStarted:
            state.statuses[id] = .running
            text = "\(prefix(id)) " + style.dim("started") + "\n"
        case .stepOutput(_, let lines):
            let head = prefix(id) + " "
            for line in lines {
                text += head
                text += line
                text += "\n"
            }
        case .stepSucceeded(let duration):
            state.statuses[id] = .succeeded
            text =
                "\(prefix(id)) " + style.green("✓ finished in \(formatDuration(duration))") + "\n"
        case .stepCached(let note):
            state.statuses[id] = .cached
            text =
                "\(prefix(id)) " + style.green("✓ up to date")
                + (note.map { style.dim(" (\($0))") } ?? "")
                + "\n"
        case .stepExplained(let reason):
            text = "\(prefix(id)) " + style.dim("runs: \(reason)") + "\n"
        case .stepFailed(let reason, let tail, let duration, let tolerated):
            state.statuses[id] = tolerated ? .warning : .failed
            let verdict =
                tolerated
                ? style.yellow("! failed after \(formatDuration(duration)) (continuing): \(reason)")
                : style.red("✗ failed after \(formatDuration(duration)): \(reason)")
            text = "\(prefix(id)) \(verdict)\n"
            if !tail.isEmpty {
                text += "\(prefix(id)) " + style.dim("last lines of stderr:") + "\n"
                for line in tail { text += "\(prefix(id))   " + style.dim("│ \(line)") + "\n" }
            }
        case .stepSkipped(let reason):
            state.statuses[id] = .skipped
            text = "\(prefix(id)) " + style.yellow("– skipped: \(reason)") + "\n"
        case .stepRetried(let attempt, let total, let reason):
            text =
                "\(prefix(id)) " + style.yellow("↻ attempt \(attempt) of \(total) after: \(reason)")
                + "\n"
        case .stepCancelled(let reason, _):
            state.statuses[id] = .cancelled
            text = "\(prefix(id)) " + style.red("✗ cancelled: \(reason)") + "\n"
        case .workflowFinished(let summary):
            text = Self.summaryTable(summary, style: style)
        }
        write(
            text,
            final: {
                if case .workflowFinished = event.kind { return true } else { return false }
            }())
    }

    private func write(_ text: String, final: Bool) {
        var output = ""
        if showsStatusLine, state.statusLineShown { output += "\r\u{1B}[2K" }
        output += text
        if showsStatusLine, !final {
            output += statusLine()
            state.statusLineShown = true
        } else {
            state.statusLineShown = false
        }
        console.write(output)
    }

    private func statusLine() -> String {
        var running = 0
        var done = 0
        var pending = 0
        for status in state.statuses.values {
            switch status {
            case .running: running += 1
            case .pending: pending += 1
            default: done += 1
            }
        }
        return style.dim("running \(running) · done \(done) · pending \(pending)")
    }

    private func prefix(_ id: String) -> String {
        let color =
            state.colors[id]
            ?? {
                let color = Style.stepColors[state.colors.count % Style.stepColors.count]
                state.colors[id] = color
                return color
            }()
        return style.colored(id, color)
    }

    /// The table that ends a run: one row per step, then the totals.
    static func summaryTable(_ summary: RunSummary, style: Style) -> String {
        let width = max(4, summary.rows.map { $0.id.count + 2 * $0.path.count }.max() ?? 4)
        func pad(_ text: String, _ length: Int) -> String {
            text + String(repeating: " ", count: max(0, length - text.count))
        }
        var text = "\n" + style.bold("Summary of \(summary.name)") + "\n"
        text +=
            "  " + pad("STEP", width) + "  " + pad("STATUS", 9) + "  " + pad("DURATION", 9)
            + "  NOTE\n"
        for row in summary.rows {
            let name = String(repeating: "  ", count: row.path.count) + row.id
            let status = pad(row.status.rawValue, 9)
            let painted: String
            switch row.status {
            case .succeeded, .cached: painted = style.green(status)
            case .failed, .cancelled: painted = style.red(status)
            case .warning, .skipped: painted = style.yellow(status)
            case .pending, .running: painted = status
            }
            let duration = pad(row.duration.map(formatDuration) ?? "–", 9)
            text +=
                "  " + pad(name, width) + "  " + painted + "  " + duration + "  "
                + (row.reason ?? "") + "\n"
        }
        var counts: [String] = []
        for status in StepStatus.allCases where summary.count(status) > 0 {
            counts.append("\(summary.count(status)) \(status.rawValue)")
        }
        let verdict: String
        switch summary.result {
        case .succeeded: verdict = style.green("succeeded")
        case .failed: verdict = style.red("failed")
        case .interrupted(let signal):
            verdict = style.red("interrupted by \(SignalName.describe(signal))")
        }
        text +=
            "\n\(summary.name) \(verdict) in \(formatDuration(summary.duration)): \(counts.joined(separator: ", "))\n"
        return text
    }
}

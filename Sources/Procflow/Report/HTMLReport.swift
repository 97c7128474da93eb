import Foundation

/// `--html FILE`: the run as one self-contained HTML page — no script, no font, no image, no
/// request of any kind: a header with the result, the timeline (``TimelineHTML``), the
/// summary table, the dependency graph (``GraphSVG``), and every step's output, folded, but
/// for failures and warnings, which are open. Output is kept as ``StepLog`` keeps it: the
/// first and last lines of each step, within the run's budget.
enum HTMLReport {
    /// The page of `run`.
    static func render(_ run: RunRecord) -> String {
        let resultColor =
            run.steps.contains { $0.status == .failed } || run.result != "succeeded"
            ? StepStatus.failed.presentation.color : StepStatus.succeeded.presentation.color
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <link rel="icon" href="data:,">
            <title>procflow: \(run.name.markupEscaped())</title>
            <style>\(style)</style>
            </head>
            <body>
            <header>
            <h1>\(run.name.markupEscaped()) <span class="badge" style="background:\(resultColor)">\(run.result)\(run.signal.map { " (\($0))" } ?? "")</span></h1>
            <p>\(header(run).markupEscaped())</p>
            </header>

            """
        html += "<section><h2>Timeline</h2>\n\(TimelineHTML.render(run))\(legend)</section>\n"
        html += "<section><h2>Summary</h2>\n\(table(run))</section>\n"
        html +=
            "<section><h2>Dependency graph</h2>\n<div class=\"scroll\">\(GraphSVG.render(run))</div></section>\n"
        html += "<section><h2>Output</h2>\n"
        for step in run.steps { html += output(step, budget: run.outputBudget) }
        return html + "</section>\n</body>\n</html>\n"
    }

    private static func header(_ run: RunRecord) -> String {
        var parts: [String] = []
        if let started = run.started {
            let formatter = ISO8601DateFormatter()
            parts.append("started \(formatter.string(from: started))")
        }
        parts.append("took \(formatDuration(run.duration))")
        var counts: [String] = []
        for status in StepStatus.allCases {
            let count = run.steps.filter { $0.status == status }.count
            if count > 0 { counts.append("\(count) \(status.rawValue)") }
        }
        parts.append(plural(run.steps.count, "step") + ": " + counts.joined(separator: ", "))
        return parts.joined(separator: " · ")
    }

    private static var legend: String {
        var html = "<p class=\"legend\">"
        for status in StepStatus.allCases where status != .pending {
            html +=
                "<span><i style=\"background:\(status.presentation.color)\"></i>\(status.rawValue)</span>"
        }
        return html + "<span><i class=\"hatched\"></i>waiting</span></p>\n"
    }

    private static func table(_ run: RunRecord) -> String {
        var html = "<table>\n<thead><tr><th>Step</th><th>Kind</th><th>Status</th><th>Duration</th>"
        html += "<th>Attempts</th><th>Reason</th></tr></thead>\n<tbody>\n"
        for step in run.steps {
            let id = step.shown.markupEscaped()
            html += "<tr><td style=\"padding-left:\(step.path.count * 14 + 6)px\">"
            html += "<a href=\"#output-\(step.id.markupEscaped(inAttribute: true))\">\(id)</a></td>"
            html += "<td>\(step.node.kind.markupEscaped())</td>"
            html += "<td><span class=\"status\" style=\"color:\(step.status.presentation.color)\">"
            html += "\(step.status.presentation.symbol) \(step.status.rawValue)</span></td>"
            html += "<td class=\"number\">\(step.duration.map(formatDuration) ?? "–")</td>"
            html +=
                "<td class=\"number\">\(step.maxAttempts > 1 ? "\(step.attempts.count) of \(step.maxAttempts)" : "")</td>"
            html += "<td>\((step.reason ?? "").markupEscaped())</td></tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    private static func output(_ step: RunRecord.Step, budget: Int) -> String {
        let presentation = step.status.presentation
        var html = "<details id=\"output-\(step.id.markupEscaped(inAttribute: true))\""
        html += presentation.isProblem ? " open>" : ">"
        html +=
            "<summary><i style=\"background:\(presentation.color)\"></i><b>\(step.shown.markupEscaped())</b> "
        var title = step.status.rawValue
        if let duration = step.duration { title += " in \(formatDuration(duration))" }
        if let reason = step.reason { title += ": \(reason)" }
        let counts = step.log.lineCounts.values.reduce(0, +)
        if counts > 0 { title += " · \(plural(counts, "line"))" }
        html += "\(title.markupEscaped())</summary>\n"
        if let value = step.value {
            var heading = "value (\(value.format.rawValue), \(formatBytes(value.bytes))"
            if value.isCut { heading += ", its first \(formatBytes(value.text.utf8.count))" }
            html += "<p class=\"value\">\(heading.markupEscaped())):</p>"
            html +=
                "<pre class=\"value\">\(value.text.markupEscaped())\(value.isCut ? "…" : "")</pre>\n"
        }
        let log = step.log
        let kept = log.keptLines
        if counts == 0 {
            html += "<p class=\"empty\">no output</p>"
        } else if log.isDiscarded {
            html +=
                "<p class=\"empty\">\(plural(counts, "line")) not kept: the report keeps at most "
            html +=
                "\(formatBytes(budget)) of the output of steps that succeed.</p>"
        } else {
            html += "<pre>"
            for line in kept.head { html += render(line) }
            if log.omitted > 0 {
                html +=
                    "<span class=\"omitted\">… \(plural(log.omitted, "line")) not kept …</span>\n"
            }
            for line in kept.tail { html += render(line) }
            html += "</pre>"
        }
        return html + "</details>\n"
    }

    private static func render(_ line: StepLog.Line) -> String {
        let text = line.text.markupEscaped()
        return line.stream == .stderr ? "<span class=\"stderr\">\(text)</span>\n" : text + "\n"
    }

    private static let style = """
        body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#fff}
        header{padding:16px 24px;background:#f6f8fa;border-bottom:1px solid #d0d7de}
        h1{margin:0 0 4px;font-size:22px}h2{font-size:17px;margin:0 0 10px}
        section{padding:14px 24px}p{margin:4px 0}
        .badge{color:#fff;border-radius:10px;padding:2px 10px;font-size:14px;vertical-align:middle}
        .timeline{border:1px solid #d0d7de;border-radius:6px;padding:6px 0;font-size:13px}
        .row{display:flex;align-items:center;height:20px}
        .row:hover{background:#f6f8fa}
        .label{width:220px;flex:none;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;box-sizing:border-box}
        .track{position:relative;flex:1;height:14px;margin-right:40px}
        .axis{height:22px;color:#57606a;font-size:11px}
        .tick{position:absolute;top:0;transform:translateX(-50%);white-space:nowrap;border-left:1px solid #d0d7de;padding-left:3px}
        .bar{position:absolute;top:1px;height:12px;min-width:2px;border-radius:3px}
        .bar.group{top:-2px;height:16px;border:2px solid;box-sizing:border-box;background:transparent}
        .bar.wait,.hatched{background:repeating-linear-gradient(45deg,#c3c8ce 0 3px,#eef0f2 3px 6px)}
        .mark{position:absolute;top:-2px;font-weight:bold;transform:translateX(-50%)}
        .legend span{margin-right:14px;font-size:13px}
        .legend i,summary i{display:inline-block;width:11px;height:11px;border-radius:3px;margin-right:5px;vertical-align:-1px}
        table{border-collapse:collapse;font-size:14px}
        th,td{text-align:left;padding:4px 10px;border-bottom:1px solid #eaeef2;vertical-align:top}
        th{background:#f6f8fa}.number{text-align:right;white-space:nowrap}
        .status{font-weight:600;white-space:nowrap}
        a{color:#0969da;text-decoration:none}
        .scroll{overflow:auto;border:1px solid #d0d7de;border-radius:6px}
        .graph text{font-size:12px;font-family:ui-monospace,monospace}
        details{border:1px solid #d0d7de;border-radius:6px;margin:6px 0}
        summary{cursor:pointer;padding:6px 10px;background:#f6f8fa}
        pre{margin:0;padding:8px 10px;overflow:auto;max-height:480px;font-size:12px;line-height:1.4}
        .stderr{color:#b42318}.omitted{color:#57606a;font-style:italic}
        .empty{padding:6px 10px;color:#57606a}
        """
}

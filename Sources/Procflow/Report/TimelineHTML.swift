import Foundation

/// The HTML report's timeline: a row per step, in file order and indented by group, with a
/// bar per attempt on a common time axis, coloured by status; waits (condition, mutex,
/// backoff) as hatched bars before them; groups and branches as outlined bars around what
/// they hold. Laid out with CSS alone.
enum TimelineHTML {
    /// How many ticks the axis has, at most.
    static let ticks = 6

    /// The timeline of `run`.
    static func render(_ run: RunRecord) -> String {
        let total = max(run.duration, 0.001)
        func position(_ start: TimeInterval, _ end: TimeInterval) -> String {
            let left = min(100, 100 * start / total)
            let width = max(0, min(100 - left, 100 * (end - start) / total))
            return "left:\(percent(left));width:\(percent(width))"
        }
        let now = run.finished ?? Date()
        var html =
            "<div class=\"timeline\">\n<div class=\"row axis\"><div class=\"label\"></div><div class=\"track\">"
        for tick in 0...ticks {
            let time = total * Double(tick) / Double(ticks)
            html +=
                "<span class=\"tick\" style=\"left:\(percent(100 * Double(tick) / Double(ticks)))\">"
            html += "\(formatDuration(time))</span>"
        }
        html += "</div></div>\n"
        for step in run.steps {
            let color = step.status.presentation.color
            html +=
                "<div class=\"row\"><div class=\"label\" style=\"padding-left:\(step.path.count * 14 + 4)px\">"
            html +=
                "<a href=\"#output-\(step.id.markupEscaped(inAttribute: true))\">\(step.shown.markupEscaped())</a></div>"
            html += "<div class=\"track\">"
            for wait in step.waits {
                let title =
                    "\(step.shown): \(wait.kind.rawValue), \(formatDuration(wait.ended.timeIntervalSince(wait.started)))"
                html +=
                    "<span class=\"bar wait\" style=\"\(position(run.offset(wait.started), run.offset(wait.ended)))\""
                html += " title=\"\(title.markupEscaped(inAttribute: true))\"></span>"
            }
            for attempt in step.attempts {
                html += bar(of: attempt, of: step, in: run, now: now, position: position)
            }
            if step.attempts.isEmpty {
                let title =
                    "\(step.shown): \(step.status.rawValue)" + (step.reason.map { ": \($0)" } ?? "")
                let at = run.offset(step.ended ?? now)
                html +=
                    "<span class=\"mark\" style=\"left:\(percent(min(100, 100 * at / total)));color:\(color)\""
                html +=
                    " title=\"\(title.markupEscaped(inAttribute: true))\">\(step.status.presentation.symbol)</span>"
            }
            html += "</div></div>\n"
        }
        return html + "</div>\n"
    }

    /// The bar of one attempt of `step`, placed by `position`.
    private static func bar(
        of attempt: RunRecord.Attempt, of step: RunRecord.Step, in run: RunRecord, now: Date,
        position: (TimeInterval, TimeInterval) -> String
    ) -> String {
        let color = step.status.presentation.color
        let start = run.offset(attempt.started)
        let end = run.offset(attempt.ended ?? now)
        let failed = attempt.failure != nil
        let status = failed ? StepStatus.failed : step.status
        var title = "\(step.shown)"
        if step.maxAttempts > 1 {
            title += ", attempt \(attempt.number) of \(step.maxAttempts)"
        }
        title += ": \(status.rawValue) after \(formatDuration(end - start))"
        if let reason = attempt.failure ?? step.reason { title += ": \(reason)" }
        let kind = step.node.isContainer ? "bar group" : "bar"
        let paint =
            step.node.isContainer
            ? "border-color:\(color)" : "background:\(status.presentation.color)"
        var html = "<span class=\"\(kind)\" style=\"\(position(start, end));\(paint)\""
        html += " title=\"\(title.markupEscaped(inAttribute: true))\"></span>"
        return html
    }

    private static func percent(_ value: Double) -> String {
        String(format: "%.3f%%", value)
    }
}

import Foundation

/// `--junit FILE`: the run as JUnit XML, as Jenkins, GitLab and GitHub test-report actions
/// read it.
///
/// A `testsuite` for the workflow and one for each group or branch (named by its path:
/// `workflow/group/inner`), each holding a `testcase` for each step directly in it that does
/// work itself (shell, http, file), its `classname` the suite's name. A failure is a
/// `<failure message="reason">` whose text holds the reason and the step's last lines of
/// output; a skip or a cancellation a `<skipped message="reason">`; a `continueOnError` failure
/// passes, with the reason in `system-err`. Retries show as Maven Surefire's
/// `<rerunFailure>` (attempts before a final failure) and `<flakyFailure>` (attempts before a
/// final success), and as an `attempts` property. The output is in `system-out` and
/// `system-err`, its first and last lines when it is long.
enum JUnitReport {
    /// How many last lines of output a failure's text holds.
    static let failureLines = 20

    /// The report of `run`.
    static func render(_ run: RunRecord) -> String {
        let suites = suites(of: run)
        let cases = suites.flatMap(\.cases)
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml +=
            "<testsuites\(attributes(name: run.name, cases, time: run.duration, started: run.started))>\n"
        for suite in suites {
            let time =
                suite.container.flatMap(\.duration) ?? (suite.container == nil ? run.duration : 0)
            let started = suite.container?.started ?? run.started
            xml +=
                "  <testsuite\(attributes(name: suite.name, suite.cases, time: time, started: started))>\n"
            if let container = suite.container {
                xml += "    <properties>\n"
                xml += property("status", container.status.rawValue, indent: 6)
                if let reason = container.reason { xml += property("reason", reason, indent: 6) }
                xml += "    </properties>\n"
            }
            for step in suite.cases { xml += testcase(step, classname: suite.name) }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    /// A suite: the workflow's (no container) or a group's or branch's, with the steps
    /// directly in it that do work.
    private struct Suite {
        let name: String
        let container: RunRecord.Step?
        var cases: [RunRecord.Step] = []
    }

    private static func suites(of run: RunRecord) -> [Suite] {
        var suites = [Suite(name: run.name, container: nil)]
        var positions: [String: Int] = [:]
        for step in run.steps where step.node.isContainer {
            positions[step.id] = suites.count
            suites.append(
                Suite(
                    name: ([run.name] + step.path + [step.id]).joined(separator: "/"),
                    container: step))
        }
        for step in run.steps where !step.node.isContainer {
            suites[step.node.parent.flatMap { positions[$0] } ?? 0].cases.append(step)
        }
        return suites
    }

    private static func attributes(
        name: String, _ cases: [RunRecord.Step], time: TimeInterval, started: Date?
    ) -> String {
        let outcomes = cases.map(\.status.presentation.junit)
        var text = " name=\"\(name.markupEscaped(inAttribute: true))\" tests=\"\(cases.count)\""
        text += " failures=\"\(outcomes.filter { $0 == .failure }.count)\" errors=\"0\""
        text += " skipped=\"\(outcomes.filter { $0 == .skipped }.count)\" time=\"\(seconds(time))\""
        if let started { text += " timestamp=\"\(timestamp(started))\"" }
        return text
    }

    private static func testcase(_ step: RunRecord.Step, classname: String) -> String {
        var xml = "    <testcase name=\"\(step.shown.markupEscaped(inAttribute: true))\""
        xml += " classname=\"\(classname.markupEscaped(inAttribute: true))\""
        xml += " time=\"\(seconds(step.duration ?? 0))\">\n"
        xml += "      <properties>\n"
        xml += property("kind", step.node.kind, indent: 8)
        xml += property("status", step.status.rawValue, indent: 8)
        xml += property("attempts", "\(step.attempts.count)", indent: 8)
        xml += "      </properties>\n"
        let reason = step.reason ?? step.status.rawValue
        switch step.status.presentation.junit {
        case .failure:
            var text = reason
            let last = step.log.lastLines(failureLines)
            if !last.isEmpty {
                text += "\n\nlast lines of output:\n" + last.map(\.text).joined(separator: "\n")
            }
            xml += "      <failure message=\"\(reason.markupEscaped(inAttribute: true))\""
            xml += " type=\"\(step.status.rawValue)\">\(text.markupEscaped())</failure>\n"
        case .skipped:
            let message = step.status == .skipped ? reason : "\(step.status.rawValue): \(reason)"
            xml += "      <skipped message=\"\(message.markupEscaped(inAttribute: true))\"/>\n"
        case .passed:
            break
        }
        let retried = step.status.presentation.junit == .failure ? "rerunFailure" : "flakyFailure"
        for attempt in step.attempts {
            guard let failure = attempt.failure else { continue }
            let message = "attempt \(attempt.number) of \(step.maxAttempts) failed: \(failure)"
            xml += "      <\(retried) message=\"\(message.markupEscaped(inAttribute: true))\""
            xml += " type=\"failed\"/>\n"
        }
        xml += output(of: step, stream: .stdout, element: "system-out")
        xml += output(of: step, stream: .stderr, element: "system-err")
        return xml + "    </testcase>\n"
    }

    private static func output(
        of step: RunRecord.Step, stream: ShellProcedure.Stream, element: String
    ) -> String {
        var lines: [String] = []
        if stream == .stderr, step.status == .warning, let reason = step.reason {
            lines.append("failed (continueOnError): \(reason)")
        }
        let log = step.log
        if log.isDiscarded, log.lineCounts[stream, default: 0] > 0 {
            lines.append("… \(log.lineCounts[stream]!) lines not kept (the report's output budget)")
        } else {
            let kept = log.keptLines
            lines += kept.head.filter { $0.stream == stream }.map(\.text)
            if log.omitted > 0 { lines.append("… \(log.omitted) lines not kept …") }
            lines += kept.tail.filter { $0.stream == stream }.map(\.text)
        }
        guard !lines.isEmpty else { return "" }
        return "      <\(element)>\(lines.joined(separator: "\n").markupEscaped())</\(element)>\n"
    }

    private static func property(_ name: String, _ value: String, indent: Int) -> String {
        String(repeating: " ", count: indent)
            + "<property name=\"\(name)\" value=\"\(value.markupEscaped(inAttribute: true))\"/>\n"
    }

    /// Seconds with three decimals, as JUnit's `time`.
    private static func seconds(_ value: TimeInterval) -> String {
        String(format: "%.3f", max(0, value))
    }

    /// A local-time-free ISO 8601 timestamp, in UTC, as JUnit's `timestamp`.
    private static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [
            .withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate,
        ]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}

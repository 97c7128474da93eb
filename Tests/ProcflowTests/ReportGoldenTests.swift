import Foundation
import Testing

@testable import Procflow

/// A run made of events at fixed times, so that its reports are the same every time.
private func recordedRun() throws -> RunRecord {
    let workflow = try loadWorkflow(
        """
        {"name": "golden", "procedures": [
          {"id": "fetch", "kind": "http", "url": "http://127.0.0.1:1/", "description": "Gets the <data>"},
          {"id": "build", "kind": "shell", "run": "make", "dependsOn": ["fetch"], "retry": {"attempts": 3}},
          {"id": "pack", "kind": "group", "dependsOn": ["build"], "procedures": [
            {"id": "zip", "kind": "shell", "run": "zip", "mutex": "disk"},
            {"id": "sign", "kind": "shell", "run": "sign", "when": {"env": "SIGN"}}
          ]},
          {"id": "lint", "kind": "shell", "run": "lint", "continueOnError": true}
        ]}
        """
    ).get()
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    var record = RunRecord(graph: WorkflowGraph(workflow))
    func at(_ seconds: Double, _ step: String?, _ kind: RunEvent.Kind) {
        let path = step.flatMap { id in record[id]?.path } ?? []
        record.record(
            RunEvent(time: start.addingTimeInterval(seconds), step: step, path: path, kind: kind))
    }
    at(
        0, nil,
        .workflowStarted(name: "golden", steps: ["fetch", "build", "pack", "zip", "sign", "lint"]))
    at(0.01, "fetch", .stepStarted(attempt: 1, of: 1))
    at(0.01, "lint", .stepStarted(attempt: 1, of: 1))
    at(0.2, "lint", .stepOutput(.stderr, ["warning: x < y & \u{1B}[1mbold\u{1B}[0m"]))
    at(
        0.25, "lint",
        .stepFailed(
            reason: "exited with status 1", stderrTail: ["warning"], duration: 0.24, tolerated: true
        ))
    at(0.5, "fetch", .stepSucceeded(duration: 0.49))
    at(0.5, "build", .stepStarted(attempt: 1, of: 3))
    at(0.6, "build", .stepOutput(.stdout, ["compiling", "]]> done"]))
    at(1.0, "build", .stepRetried(attempt: 2, of: 3, reason: "exited with status 2", duration: 0.5))
    at(1.5, "build", .stepWaited(.backoff, duration: 0.5))
    at(1.5, "build", .stepStarted(attempt: 2, of: 3))
    at(2.0, "build", .stepSucceeded(duration: 1.5))
    at(2.0, "pack", .stepStarted(attempt: 1, of: 1))
    at(2.0, "sign", .stepSkipped(reason: "its condition is false"))
    at(2.1, "zip", .stepWaited(.mutex, duration: 0.1))
    at(2.1, "zip", .stepStarted(attempt: 1, of: 1))
    at(3.0, "zip", .stepSucceeded(duration: 0.9))
    at(3.0, "pack", .stepSucceeded(duration: 1.0))
    let rows = record.steps.map { step in
        RunSummary.Row(
            id: step.id, path: step.path, status: step.status, duration: step.duration,
            reason: step.reason)
    }
    at(
        3.0, nil,
        .workflowFinished(RunSummary(name: "golden", rows: rows, result: .succeeded, duration: 3.0))
    )
    return record
}

@Suite("Report golden files")
struct ReportGoldenTests {

    /// Compares `text` with the golden file `name`; `PROCFLOW_UPDATE_GOLDEN=1` rewrites it.
    private func expectGolden(_ text: String, _ name: String) throws {
        let url = fixtures.appendingPathComponent("reports/\(name)")
        if ProcessInfo.processInfo.environment["PROCFLOW_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(text == expected, "\(name) differs from its golden file")
    }

    @Test func junit() throws {
        try expectGolden(JUnitReport.render(recordedRun()), "expected.junit.xml")
    }

    @Test func summary() throws {
        try expectGolden(SummaryReport.render(recordedRun()), "expected.summary.json")
    }

    @Test func trace() throws {
        try expectGolden(TraceReport.render(recordedRun()), "expected.trace.json")
    }

    @Test func gitHubStepSummary() throws {
        try expectGolden(StepSummaryMarkdown.render(recordedRun()), "expected.step-summary.md")
    }

    @Test func html() throws {
        try expectGolden(HTMLReport.render(recordedRun()), "expected.report.html")
    }
}

@Suite("Report bounds")
struct ReportBoundTests {

    @Test func pastTheBudgetStepsThatSucceedLetTheirOutputGoAndFailuresKeepIt() throws {
        let workflow = try loadWorkflow(
            """
            {"procedures": [
              {"id": "first", "kind": "shell", "run": "true"},
              {"id": "second", "kind": "shell", "run": "true"},
              {"id": "broken", "kind": "shell", "run": "false"}
            ]}
            """
        ).get()
        var record = RunRecord(graph: WorkflowGraph(workflow), outputBudget: 1000)
        let line = Substring(String(repeating: "x", count: 99))
        func output(_ id: String, lines: Int) {
            record.record(RunEvent(step: id, kind: .stepStarted(attempt: 1, of: 1)))
            record.record(
                RunEvent(step: id, kind: .stepOutput(.stdout, Array(repeating: line, count: lines)))
            )
        }
        output("first", lines: 6)
        output("broken", lines: 6)
        // 1,200 bytes kept: past the budget, first lets its output go as it ends; broken keeps
        // its own; second ends under the budget and keeps its own.
        record.record(RunEvent(step: "first", kind: .stepSucceeded(duration: 1)))
        record.record(
            RunEvent(
                step: "broken",
                kind: .stepFailed(reason: "no", stderrTail: [], duration: 1, tolerated: false)))
        output("second", lines: 3)
        record.record(RunEvent(step: "second", kind: .stepSucceeded(duration: 1)))
        #expect(record["first"]?.log.isDiscarded == true)
        #expect(record["first"]?.log.lineCounts[.stdout] == 6)
        #expect(record["broken"]?.log.isDiscarded == false)
        #expect(record["second"]?.log.isDiscarded == false)
        let html = HTMLReport.render(record)
        #expect(html.contains("6 lines not kept: the report keeps at most 1000 bytes"))
    }

    @Test func aGraphTooLargeToDrawSaysSo() throws {
        let steps = (0...GraphSVG.maximumSteps).map {
            #"{"id": "s\#($0)", "kind": "shell", "run": "true"}"#
        }
        let workflow = try loadWorkflow(#"{"procedures": [\#(steps.joined(separator: ","))]}"#)
            .get()
        let svg = GraphSVG.render(RunRecord(graph: WorkflowGraph(workflow)))
        #expect(svg.hasPrefix("<p>The graph of 401 steps is not drawn here (at most 400)"))
    }

    @Test func thePanelFitsTheTerminalAndCountsWhatItDoesNotList() {
        let now = Date(timeIntervalSince1970: 100)
        let running = (1...8).map {
            LivePanel.Running(
                id: "a-rather-long-step-name-\($0)", since: now.addingTimeInterval(-75), color: nil)
        }
        let panel = LivePanel(running: running, done: 3, total: 12, remaining: 64.2)
        let lines = panel.lines(at: now, width: 40, style: Style(enabled: false))
        #expect(lines.count == 8)
        #expect(lines.allSatisfy { $0.count <= 39 })
        #expect(lines[0] == "  ▸ a-rather-long-step-name-1  1m15s")
        #expect(lines[6] == "  … and 2 more running")
        #expect(lines[7].hasPrefix("██████░░░░░░░░░░░░░░░░░░ 3/12 steps"))
        #expect(lines[7].hasSuffix("…"))
        let wide = panel.lines(at: now, width: 120, style: Style(enabled: false))
        #expect(wide[7] == "██████░░░░░░░░░░░░░░░░░░ 3/12 steps · about 1m05s left")
    }
}

import Foundation
import Testing

@testable import Procflow

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A JUnit document read back with Foundation's XML parser: every element with its
/// attributes, its text and its parent's name.
final class ParsedXML: NSObject, XMLParserDelegate {
    struct Element {
        let name: String
        let attributes: [String: String]
        var text = ""
        let parent: String?
        /// The `name` attribute of the nearest enclosing `testsuite`.
        let suite: String?
    }

    private(set) var elements: [Element] = []
    private var open: [Int] = []
    private(set) var error: (any Error)?

    init(_ data: Data) {
        super.init()
        let parser = XMLParser(data: data)
        parser.delegate = self
        if !parser.parse() { error = parser.parserError ?? CocoaError(.coderReadCorrupt) }
    }

    func elements(_ name: String) -> [Element] { elements.filter { $0.name == name } }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        let parent = open.last.map { elements[$0] }
        let suite =
            name == "testsuite"
            ? attributes["name"]
            : (parent?.name == "testsuite" ? parent?.attributes["name"] : parent?.suite)
        elements.append(
            Element(name: name, attributes: attributes, parent: parent?.name, suite: suite))
        open.append(elements.count - 1)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let index = open.last { elements[index].text += string }
    }

    func parser(
        _ parser: XMLParser, didEndElement name: String, namespaceURI: String?,
        qualifiedName: String?
    ) {
        open.removeLast()
    }
}

/// Reads a JSON file of a fixture's directory.
private func json(_ fixture: WorkflowFixture, _ name: String) throws -> [String: Any] {
    let data = try Data(contentsOf: fixture.directory.appendingPathComponent(name))
    return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
}

@Suite("Report files")
struct ReportFileTests {

    /// Output no XML or HTML may let through as it is.
    static let hostile =
        #"printf 'plain & <tag> "q" '\''s'\'' ]]> end\n\001\002\033[31mred\033[0m \377\376 bad utf8\n'"#

    @Test func junitIsValidXMLForAnyOutputWithASuitePerGroupAndRetriesVisible() throws {
        let fixture = try WorkflowFixture(
            """
            {"name": "ci", "procedures": [
              {"id": "hostile", "kind": "shell", "run": \(JSONWriter.string(.string(Self.hostile))), "description": "prints anything"},
              {"id": "flaky", "kind": "shell",
               "run": "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; echo attempt $n >&2; [ $n -ge 2 ]",
               "retry": {"attempts": 3, "delay": 0}},
              {"id": "pack", "kind": "group", "procedures": [
                {"id": "broken", "kind": "shell", "run": "echo 'why ]]> <' >&2; exit 3", "retry": {"attempts": 2, "delay": 0}},
                {"id": "after", "kind": "shell", "run": "true", "dependsOn": ["broken"]}
              ]}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--junit", "reports/junit.xml"])
        #expect(result.status == 1)
        let data = try Data(
            contentsOf: fixture.directory.appendingPathComponent("reports/junit.xml"))
        let xml = ParsedXML(data)
        #expect(xml.error == nil, "\(String(describing: xml.error))")
        let root = try #require(xml.elements("testsuites").first)
        #expect(root.attributes["tests"] == "4")
        #expect(root.attributes["failures"] == "1")
        #expect(root.attributes["skipped"] == "1")
        #expect(xml.elements("testsuite").map { $0.attributes["name"] } == ["ci", "ci/pack"])
        let cases = Dictionary(
            uniqueKeysWithValues: xml.elements("testcase").map { ($0.attributes["name"]!, $0) })
        #expect(cases["hostile"]?.attributes["classname"] == "ci")
        #expect(cases["broken"]?.attributes["classname"] == "ci/pack")
        #expect(cases["broken"]?.suite == "ci/pack")
        let failure = try #require(xml.elements("failure").first)
        #expect(failure.attributes["message"] == "exited with status 3")
        #expect(failure.text.contains("why ]]> <"))
        #expect(xml.elements("rerunFailure").count == 1)
        #expect(xml.elements("flakyFailure").count == 1)
        #expect(
            xml.elements("flakyFailure").first?.attributes["message"]
                == "attempt 1 of 3 failed: exited with status 1")
        let skipped = try #require(xml.elements("skipped").first)
        #expect(skipped.attributes["message"] == "dependency broken failed")
        let output = try #require(xml.elements("system-out").first { _ in true })
        #expect(output.text.contains(#"plain & <tag> "q" 's' ]]> end"#))
        #expect(output.text.contains(#"\u{1}\u{2}red \#u{FFFD}\#u{FFFD} bad utf8"#))
        let attempts = xml.elements("property").filter { $0.attributes["name"] == "attempts" }
        #expect(attempts.map { $0.attributes["value"] } == ["1", "2", "2", "0"])
    }

    @Test func theTraceHasAnEventPerAttemptOnLanesThatShowConcurrencyGroupsAroundAndWaits() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "one", "kind": "shell", "run": "sleep 0.3"},
              {"id": "two", "kind": "shell", "run": "sleep 0.3"},
              {"id": "later", "kind": "shell", "run": "true", "dependsOn": ["one", "two"]},
              {"id": "pack", "kind": "group", "dependsOn": ["later"], "procedures": [
                {"id": "m1", "kind": "shell", "run": "sleep 0.1", "mutex": "m"},
                {"id": "m2", "kind": "shell", "run": "sleep 0.1", "mutex": "m"}
              ]},
              {"id": "retry", "kind": "shell", "run": "exit 1", "dependsOn": ["pack"], "retry": {"attempts": 2, "delay": 0.1}},
              {"id": "gated", "kind": "shell", "run": "true", "when": {"command": "false"}}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--trace", "trace.json", "--max-concurrent", "4"])
        #expect(result.status == 1)
        let trace = try json(fixture, "trace.json")
        let events = try #require(trace["traceEvents"] as? [[String: Any]])
        let complete = events.filter { $0["ph"] as? String == "X" }
        func spans(_ pid: Int) -> [[String: Any]] { complete.filter { $0["pid"] as? Int == pid } }
        let steps = spans(1)
        #expect(
            steps.compactMap { $0["name"] as? String }.sorted() == [
                "later", "m1", "m2", "one", "retry", "retry (attempt 2)", "two",
            ])
        func lane(_ name: String) -> Int? {
            steps.first { $0["name"] as? String == name }?["tid"] as? Int
        }
        #expect(lane("one") != lane("two"))
        // Nothing overlaps on a lane; only as many lanes as steps ran at once.
        for (_, list) in Dictionary(grouping: steps, by: { $0["tid"] as! Int }) {
            let sorted = list.map { ($0["ts"] as! Double, $0["dur"] as! Double) }.sorted {
                $0.0 < $1.0
            }
            for (first, second) in zip(sorted, sorted.dropFirst()) {
                #expect(first.0 + first.1 <= second.0)
            }
        }
        #expect(Set(steps.compactMap { $0["tid"] as? Int }).count == 2)
        let retry = steps.filter { ($0["name"] as? String)?.hasPrefix("retry") == true }
        #expect(
            retry.compactMap { ($0["args"] as? [String: Any])?["attempt"] as? Int }.sorted() == [
                1, 2,
            ])
        #expect(
            retry.allSatisfy { ($0["args"] as? [String: Any])?["status"] as? String == "failed" })
        #expect(
            retry.allSatisfy {
                ($0["args"] as? [String: Any])?["reason"] as? String == "exited with status 1"
            })
        // The group encloses its steps.
        let groups = spans(2)
        let pack = try #require(groups.first { $0["name"] as? String == "pack" })
        let (start, end) = (pack["ts"] as! Double, pack["ts"] as! Double + (pack["dur"] as! Double))
        for name in ["m1", "m2"] {
            let step = try #require(steps.first { $0["name"] as? String == name })
            #expect(step["ts"] as! Double >= start)
            #expect(step["ts"] as! Double + (step["dur"] as! Double) <= end)
        }
        let waits = spans(3).compactMap { $0["name"] as? String }
        #expect(waits.contains("gated: condition"))
        #expect(waits.contains("retry: backoff"))
        #expect(waits.contains("m1: mutex") && waits.contains("m2: mutex"))
        let notRun = events.filter { $0["ph"] as? String == "i" }
        #expect(
            notRun.compactMap { ($0["args"] as? [String: Any])?["reason"] as? String } == [
                "its condition is false: command `false` exited with a non-zero status"
            ])
        #expect(
            events.contains {
                $0["ph"] as? String == "M"
                    && ($0["args"] as? [String: Any])?["name"] as? String == "steps"
            })
    }

    @Test func theSummaryDescribesEveryStep() throws {
        let fixture = try WorkflowFixture(
            """
            {"name": "sum", "procedures": [
              {"id": "talk", "kind": "shell", "run": "echo one; echo two; echo err >&2", "description": "Talks"},
              {"id": "flaky", "kind": "shell", "run": "exit 1", "continueOnError": true, "retry": {"attempts": 2, "delay": 0}},
              {"id": "pack", "kind": "group", "procedures": [{"id": "in", "kind": "file", "op": "write", "path": "x", "content": "x"}]}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--summary", "summary.json"])
        #expect(result.status == 0)
        let summary = try json(fixture, "summary.json")
        #expect(summary["version"] as? Int == 1)
        #expect(summary["workflow"] as? String == "sum")
        #expect(summary["result"] as? String == "succeeded")
        #expect(summary["counts"] as? [String: Int] == ["succeeded": 3, "warning": 1])
        let steps = try #require(summary["steps"] as? [[String: Any]])
        #expect(steps.map { $0["id"] as? String } == ["talk", "flaky", "pack", "in"])
        #expect(steps[0]["description"] as? String == "Talks")
        #expect(
            steps[0]["output"] as? [String: [String: Int]] == [
                "stdout": ["lines": 2, "bytes": 8], "stderr": ["lines": 1, "bytes": 4],
            ])
        #expect(steps[1]["status"] as? String == "warning")
        #expect(steps[1]["reason"] as? String == "exited with status 1")
        let attempts = try #require(steps[1]["attempts"] as? [[String: Any]])
        #expect(attempts.map { $0["attempt"] as? Int } == [1, 2])
        #expect(attempts[0]["reason"] as? String == "exited with status 1")
        #expect(steps[3]["path"] as? [String] == ["pack"])
        #expect(steps[3]["kind"] as? String == "file write")
    }

    @Test func theHTMLReportIsSelfContainedWithEveryStepAndFailuresOpen() throws {
        let fixture = try WorkflowFixture(
            """
            {"name": "page", "procedures": [
              {"id": "hostile", "kind": "shell", "run": \(JSONWriter.string(.string(Self.hostile)))},
              {"id": "flood", "kind": "shell", "run": "seq 1 300000"},
              {"id": "broken", "kind": "shell", "run": "echo '<script>alert(1)</script>' >&2; exit 2"},
              {"id": "pack", "kind": "group", "procedures": [{"id": "inner", "kind": "shell", "run": "true", "dependsOn": ["broken"]}]}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--html", "report.html"])
        #expect(result.status == 1)
        let html = try #require(fixture.contents("report.html"))
        for id in ["hostile", "flood", "broken", "pack", "inner"] {
            #expect(html.contains("<details id=\"output-\(id)\""), "\(id)")
        }
        #expect(html.contains("<details id=\"output-broken\" open>"))
        #expect(html.contains("<details id=\"output-flood\">"))
        #expect(!html.lowercased().contains("<script"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        for external in ["src=", "href=\"http", "@import", "url(http", "<link rel=\"stylesheet"] {
            #expect(!html.contains(external), "\(external)")
        }
        #expect(html.contains("<svg class=\"graph\""))
        #expect(html.contains("lines not kept"))
        #expect(html.contains("\n300000\n"))
        #expect(html.utf8.count < 1 << 20)
    }

    @Test func reportsAreWrittenAfterAnInterruption() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "quick", "kind": "shell", "run": "echo done"},
              {"id": "slow", "kind": "shell", "run": ": > started; exec sleep 300", "dependsOn": ["quick"]}
            ]}
            """)
        defer { fixture.remove() }
        let running = try RunningProcflow(
            fixture,
            arguments: [
                "--summary", "s.json", "--junit", "j.xml", "--trace", "t.json", "--html", "r.html",
            ])
        // quick has finished once slow has started.
        #expect(eventually(timeout: 30) { fixture.exists("started") })
        kill(running.process.processIdentifier, SIGINT)
        _ = running.finish(timeout: 30)
        #expect(running.process.terminationStatus == 130)
        let summary = try json(fixture, "s.json")
        #expect(summary["result"] as? String == "interrupted")
        #expect(summary["signal"] as? String == "SIGINT")
        let steps = try #require(summary["steps"] as? [[String: Any]])
        #expect(steps.map { $0["status"] as? String } == ["succeeded", "cancelled"])
        #expect(
            ParsedXML(try Data(contentsOf: fixture.directory.appendingPathComponent("j.xml"))).error
                == nil)
        _ = try json(fixture, "t.json")
        #expect(fixture.contents("r.html")?.contains("interrupted") == true)
        // Written atomically: no temporary file is left beside them.
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
        #expect(!names.contains { $0.contains(".procflow-") })
    }

    @Test func aReportThatCannotBeWrittenFailsARunThatWentWell() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#)
        defer { fixture.remove() }
        let result = try fixture.run(["--summary", "/proc/procflow/s.json", "--junit", "ok.xml"])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "error: the summary report was not written: cannot create the directory /proc/procflow"
            ))
        #expect(fixture.contents("ok.xml") != nil)
    }

    @Test func gitHubActionsGetsAStepSummaryTableAppended() throws {
        let fixture = try WorkflowFixture(
            """
            {"name": "gh", "procedures": [
              {"id": "ok", "kind": "shell", "run": "true"},
              {"id": "bad", "kind": "shell", "run": "exit 4", "retry": {"attempts": 2, "delay": 0}},
              {"id": "pack", "kind": "group", "procedures": [{"id": "in", "kind": "shell", "run": "true", "dependsOn": ["bad"]}]}
            ]}
            """)
        defer { fixture.remove() }
        let file = fixture.directory.appendingPathComponent("step-summary.md")
        try Data("earlier\n".utf8).write(to: file)
        let result = try fixture.run(environment: [
            "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": file.path,
        ])
        #expect(result.status == 1)
        let text = try String(contentsOf: file, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "earlier")
        #expect(lines[1].hasPrefix("### procflow: gh failed in "))
        #expect(lines.contains("| Step | Status | Duration | Attempts | Reason |"))
        #expect(
            lines.contains {
                $0.hasPrefix("| `bad` | ✗ failed | ")
                    && $0.hasSuffix(" | 2 of 2 | exited with status 4 |")
            })
        #expect(lines.contains("| &nbsp;&nbsp;`in` | – skipped |  |  | dependency bad failed |"))
        #expect(lines.contains("2 succeeded, 1 failed, 1 skipped"))
        let outside = try fixture.run(environment: ["GITHUB_STEP_SUMMARY": file.path])
        #expect(outside.status == 1)
        #expect(try String(contentsOf: file, encoding: .utf8) == text)
    }
}

/// The reports show what each step gave the next.
@Suite("Values in reports")
struct ReportValueTests {
    @Test func theSummaryAndThePageShowEachStepsValue() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "text", "kind": "shell", "run": "printf 'a <b> & c'", "output": "text"},
              {"id": "json", "kind": "shell", "run": "printf '{\\"tag\\": \\"v1\\", \\"n\\": [1, 2]}'", "output": "json"},
              {"id": "long", "kind": "shell", "run": "head -c 10000 /dev/zero | tr '\\\\0' x", "output": "text"},
              {"id": "none", "kind": "shell", "run": "echo not a value"}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--summary", "summary.json", "--html", "report.html"])
        #expect(result.status == 0, "\(result.stderr)")
        let document =
            try JSONSerialization.jsonObject(
                with: Data((fixture.contents("summary.json") ?? "").utf8)) as? [String: Any]
        var values: [String: [String: Any]] = [:]
        for step in document?["steps"] as? [[String: Any]] ?? [] {
            if let value = step["value"] as? [String: Any] { values[step["id"] as! String] = value }
        }
        #expect(Set(values.keys) == ["text", "json", "long"])
        #expect(values["text"]?["text"] as? String == "a <b> & c")
        #expect(values["text"]?["format"] as? String == "text")
        #expect(values["json"]?["text"] as? String == #"{"n":[1,2],"tag":"v1"}"#)
        #expect(values["json"]?["cut"] as? Bool == false)
        #expect((values["long"]?["text"] as? String)?.count == 4096)
        #expect(values["long"]?["bytes"] as? Int == 10000)
        #expect(values["long"]?["cut"] as? Bool == true)
        let page = fixture.contents("report.html") ?? ""
        #expect(page.contains(#"<pre class="value">a &lt;b&gt; &amp; c</pre>"#))
        #expect(page.contains("value (text, 10000 bytes, its first 4 KiB):"))
    }
}

import Foundation
import Testing

@testable import Procflow

/// A workflow written to a fresh directory, run with the real binary.
struct WorkflowFixture {
    let directory: URL
    let file = "flow.json"

    init(_ json: String) throws {
        directory = try temporaryDirectory()
        try Data(json.utf8).write(to: directory.appendingPathComponent(file))
    }

    func run(
        _ arguments: [String] = [], environment: [String: String] = [:], timeout: TimeInterval = 120
    ) throws
        -> CommandResult
    {
        try runProcflow(
            ["run", file] + arguments, in: directory, environment: environment, timeout: timeout)
    }

    /// Runs with `--events json` and parses the events back.
    func events(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> (
        CommandResult, [[String: Any]]
    ) {
        let result = try run(["--events", "json"] + arguments, environment: environment)
        let events = result.stdout.split(separator: "\n").map { line -> [String: Any] in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [
                "unparsable": String(line)
            ]
        }
        return (result, events)
    }

    func contents(_ name: String) -> String? {
        try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The final status of each step, from a `workflow.finished` event.
func statuses(_ events: [[String: Any]]) -> [String: String] {
    guard let finished = events.last(where: { $0["event"] as? String == "workflow.finished" }),
        let steps = finished["steps"] as? [[String: Any]]
    else { return [:] }
    var statuses: [String: String] = [:]
    for step in steps { statuses[step["id"] as! String] = step["status"] as? String }
    return statuses
}

/// The reason given for each step that has one.
func reasons(_ events: [[String: Any]]) -> [String: String] {
    guard let finished = events.last(where: { $0["event"] as? String == "workflow.finished" }),
        let steps = finished["steps"] as? [[String: Any]]
    else { return [:] }
    var reasons: [String: String] = [:]
    for step in steps {
        if let reason = step["reason"] as? String { reasons[step["id"] as! String] = reason }
    }
    return reasons
}

@Suite("procflow run")
struct RunTests {

    @Test func commandsFindTheProcflowBinaryInPROCFLOW() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "printf %s \"$PROCFLOW\" > seen.txt"}]}"#
        )
        defer { fixture.remove() }
        #expect(try fixture.run().status == 0)
        #expect(fixture.contents("seen.txt") == procflowBinary.resolvingSymlinksInPath().path)
    }

    @Test func wiringAcrossGroupsReachesCommandsAsData() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "producer", "kind": "group", "outputFrom": "emit", "procedures": [
                {"id": "emit", "kind": "shell", "run": "printf '{\\"name\\": \\"a $(b) `c`\\", \\"n\\": 7}'", "output": "json"}
              ]},
              {"id": "consumer", "kind": "group", "input": {"from": "producer"}, "inputTo": "show", "outputFrom": "show",
               "procedures": [
                 {"id": "show", "kind": "shell", "run": "cat; printf ' %s' \\"$N\\"", "output": "text",
                  "inputs": {"N": {"from": "emit", "select": "/n"}}}
               ]},
              {"id": "save", "kind": "file", "op": "write", "path": "out/result.txt", "input": {"from": "consumer"}}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run()
        #expect(result.status == 0, "\(result.stderr)\(result.stdout)")
        #expect(fixture.contents("out/result.txt") == #"{"n":7,"name":"a $(b) `c`"} 7"#)
    }

    @Test func aFailureSkipsItsDependentsAndTheRestRuns() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "broken", "kind": "shell", "run": "echo oops >&2; exit 4"},
              {"id": "after", "kind": "shell", "run": "true", "dependsOn": ["broken"]},
              {"id": "after-after", "kind": "shell", "run": "true", "dependsOn": ["after"]},
              {"id": "independent", "kind": "shell", "run": "sleep 0.2"},
              {"id": "cleanup", "kind": "shell", "run": "true", "dependsOn": ["broken"], "always": true}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        #expect(
            statuses(events) == [
                "broken": "failed", "after": "skipped", "after-after": "skipped",
                "independent": "succeeded",
                "cleanup": "succeeded",
            ])
        #expect(reasons(events)["broken"] == "exited with status 4")
        #expect(reasons(events)["after"] == "dependency broken failed")
        #expect(reasons(events)["after-after"] == "dependency after was skipped")
        let failure = events.first { $0["event"] as? String == "step.failed" }
        #expect(failure?["stderr"] as? [String] == ["oops"])
    }

    @Test func failFastCancelsTheRest() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "broken", "kind": "shell", "run": "sleep 0.2; exit 1"},
              {"id": "slow", "kind": "shell", "run": "sleep 30"},
              {"id": "cleanup", "kind": "shell", "run": "true", "dependsOn": ["slow"], "always": true}
            ]}
            """)
        defer { fixture.remove() }
        let started = Date()
        let (result, events) = try fixture.events(["--fail-fast"])
        #expect(result.status == 1)
        #expect(Date().timeIntervalSince(started) < 20)
        // `always` steps still run: clean-up is not cancelled.
        #expect(
            statuses(events) == ["broken": "failed", "slow": "cancelled", "cleanup": "succeeded"])
        #expect(reasons(events)["slow"] == "cancelled by --fail-fast after broken failed")
    }

    @Test func failFastReachesStepsInGroupsAndBranchesBuiltLaterButNotAlwaysSteps() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "broken", "kind": "shell", "run": "sleep 0.2; exit 1"},
              {"id": "pack", "kind": "group", "procedures": [
                {"id": "inner", "kind": "shell", "run": "sleep 30"},
                {"id": "inner-cleanup", "kind": "shell", "run": "true", "dependsOn": ["inner"], "always": true}
              ]},
              {"id": "value", "kind": "shell", "run": "sleep 0.6; printf a", "output": "text", "always": true},
              {"id": "pick", "kind": "branch", "on": {"from": "value"}, "cases": [
                {"equals": "a", "procedures": [
                  {"id": "chosen", "kind": "shell", "run": "true"},
                  {"id": "chosen-cleanup", "kind": "shell", "run": "true", "always": true}
                ]}
              ]}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events(["--fail-fast", "--max-concurrent", "4"])
        #expect(result.status == 1)
        #expect(
            statuses(events) == [
                "broken": "failed", "pack": "cancelled", "inner": "cancelled",
                "inner-cleanup": "succeeded", "value": "succeeded", "pick": "cancelled",
                "chosen": "cancelled", "chosen-cleanup": "succeeded",
            ])
        #expect(reasons(events)["chosen"] == "cancelled by --fail-fast after broken failed")
    }

    @Test func aStepSkippedForWantOfDataStopsWhatComesAfterItButAlwaysSteps() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "gated", "kind": "shell", "run": "echo data", "output": "text", "when": {"env": "PROCFLOW_TEST_UNSET"}},
              {"id": "reader", "kind": "shell", "run": "cat", "input": {"from": "gated"}},
              {"id": "after-reader", "kind": "shell", "run": "true", "dependsOn": ["reader"]},
              {"id": "cleanup", "kind": "shell", "run": "true", "dependsOn": ["reader"], "always": true}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0)
        #expect(
            statuses(events) == [
                "gated": "skipped", "reader": "skipped", "after-reader": "skipped",
                "cleanup": "succeeded",
            ])
        #expect(reasons(events)["after-reader"] == "dependency reader was skipped")
    }

    @Test func aFalseConditionSkipsTheStepAndThoseThatTakeItsOutput() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "gated", "kind": "shell", "run": "echo data", "output": "text", "when": {"env": "PROCFLOW_TEST_UNSET"}},
              {"id": "reader", "kind": "shell", "run": "cat", "input": {"from": "gated"}},
              {"id": "follower", "kind": "shell", "run": "true", "dependsOn": ["gated"]},
              {"id": "typed", "kind": "shell", "run": "true",
               "when": {"output": {"from": "flag", "select": "/on"}, "equals": true}},
              {"id": "flag", "kind": "shell", "run": "printf '{\\"on\\": \\"true\\"}'", "output": "json"}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0)
        #expect(
            statuses(events) == [
                "gated": "skipped", "reader": "skipped", "follower": "succeeded",
                "typed": "skipped",
                "flag": "succeeded",
            ])
        #expect(
            reasons(events)["gated"] == "its condition is false: env PROCFLOW_TEST_UNSET is not set"
        )
        #expect(
            reasons(events)["typed"]
                == "its condition is false: the output of flag at /on is not true")
        #expect(reasons(events)["reader"] == "dependency gated was skipped")
    }

    @Test func conditionsOnEnvironmentFilesAndCommands() throws {
        let fixture = try WorkflowFixture(
            """
            {"env": {"STAGE": "prod"}, "procedures": [
              {"id": "env-equals", "kind": "shell", "run": "true", "when": {"env": "STAGE", "equals": "prod"}},
              {"id": "env-set", "kind": "shell", "run": "true", "when": {"env": "PROCFLOW_TEST_SET"}},
              {"id": "file-exists", "kind": "shell", "run": "true", "when": {"exists": "flow.json"}},
              {"id": "file-missing", "kind": "shell", "run": "true", "when": {"exists": "missing.txt"}},
              {"id": "command-ok", "kind": "shell", "run": "true", "when": {"command": "test -f flow.json"}},
              {"id": "combined", "kind": "shell", "run": "true",
               "when": {"all": [{"not": {"exists": "missing.txt"}}, {"any": [{"env": "NOPE"}, {"command": "true"}]}]}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events(environment: ["PROCFLOW_TEST_SET": "1"])
        #expect(result.status == 0)
        #expect(
            statuses(events) == [
                "env-equals": "succeeded", "env-set": "succeeded", "file-exists": "succeeded",
                "file-missing": "skipped", "command-ok": "succeeded", "combined": "succeeded",
            ])
    }

    @Test func continueOnErrorIsAWarning() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "flaky", "kind": "shell", "run": "exit 1", "continueOnError": true},
              {"id": "next", "kind": "shell", "run": "true", "dependsOn": ["flaky"]}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0)
        #expect(statuses(events) == ["flaky": "warning", "next": "succeeded"])
    }

    @Test func retriesUntilAnAttemptSucceeds() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "flaky", "kind": "shell",
               "run": "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; [ $n -ge 3 ]",
               "retry": {"attempts": 5, "backoff": "constant", "delay": 0.05}},
              {"id": "hopeless", "kind": "shell", "run": "exit 2", "retry": {"attempts": 2, "delay": 0}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        #expect(statuses(events) == ["flaky": "succeeded", "hopeless": "failed"])
        let retries = events.filter {
            $0["event"] as? String == "step.retried" && $0["step"] as? String == "flaky"
        }
        #expect(retries.map { $0["attempt"] as? Int } == [2, 3])
        #expect(retries.first?["attempts"] as? Int == 5)
        #expect(retries.first?["reason"] as? String == "exited with status 1")
        #expect(reasons(events)["hopeless"] == "exited with status 2")
    }

    @Test func aTimeoutFailsTheStep() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [{"id": "slow", "kind": "shell", "run": "sleep 30", "timeout": 0.3}]}
            """)
        defer { fixture.remove() }
        let started = Date()
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(reasons(events)["slow"] == "timed out after 300 ms")
    }

    @Test func exitCodes() throws {
        let ok = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#)
        let failing = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "false"}]}"#)
        let invalid = try WorkflowFixture(#"{"procedures": [{"id": "a", "kind": "shell"}]}"#)
        defer {
            for fixture in [ok, failing, invalid] { fixture.remove() }
        }
        #expect(try ok.run().status == 0)
        #expect(try failing.run().status == 1)
        let result = try invalid.run()
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix("flow.json:1:17: error: /procedures/0: missing field \"run\""))
    }

    @Test func oneLineErrorsForMissingCommandsAndUnwritablePaths() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "missing", "kind": "shell", "argv": ["procflow-no-such-command"]},
              {"id": "unwritable", "kind": "file", "op": "write", "path": "/proc/procflow/nope.txt", "content": "x"}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        #expect(reasons(events)["missing"] == "command not found: procflow-no-such-command")
        #expect(
            reasons(events)["unwritable"]?.hasPrefix("cannot create the directory /proc/procflow:")
                == true)
    }

    @Test func httpAgainstALoopbackServer() throws {
        let (server, root) = try startServer(files: ["release.json": #"{"tag": "v2", "ok": true}"#])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let fixture = try WorkflowFixture(
            """
            {"vars": {"port": "0"}, "procedures": [
              {"id": "fetch", "kind": "http", "url": "http://127.0.0.1:${port}/release.json", "output": "json"},
              {"id": "tag", "kind": "shell", "run": "printf %s \\"$TAG\\"", "output": "text",
               "inputs": {"TAG": {"from": "fetch", "select": "/tag"}}},
              {"id": "post", "kind": "http", "method": "POST", "url": "http://127.0.0.1:${port}/echo",
               "input": {"from": "tag"}, "output": "json"},
              {"id": "save", "kind": "file", "op": "write", "path": "echo.json", "input": {"from": "post"}},
              {"id": "refused", "kind": "http", "url": "http://127.0.0.1:1/"}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events(["--var", "port=\(server.port)"])
        #expect(result.status == 1)
        #expect(
            statuses(events) == [
                "fetch": "succeeded", "tag": "succeeded", "post": "succeeded", "save": "succeeded",
                "refused": "failed",
            ])
        #expect(fixture.contents("echo.json")?.contains(#""body":"v2""#) == true)
        #expect(reasons(events)["refused"] == "connection refused by 127.0.0.1:1")
    }

    @Test func theCaptureLimitFailsAStepThatSaysTooMuch() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [{"id": "chatty", "kind": "shell", "run": "head -c 3000000 /dev/zero | tr '\\\\0' x", "output": "text"}]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events(["--capture-limit", "1"])
        #expect(result.status == 1)
        #expect(reasons(events)["chatty"] == "stdout went over the 1 MiB capture limit")
    }

    @Test func theEventStreamIsOneJSONObjectPerLine() throws {
        let fixture = try WorkflowFixture(
            """
            {"name": "events", "procedures": [
              {"id": "inner", "kind": "group", "procedures": [{"id": "say", "kind": "shell", "run": "echo hi; echo there >&2"}]}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0)
        #expect(!events.contains { $0["unparsable"] != nil })
        #expect(events.first?["event"] as? String == "workflow.started")
        #expect(events.first?["steps"] as? [String] == ["inner", "say"])
        #expect(events.last?["event"] as? String == "workflow.finished")
        #expect(events.last?["result"] as? String == "succeeded")
        let say = events.filter { $0["step"] as? String == "say" }
        #expect(say.map { $0["event"] as! String }.first == "step.started")
        #expect(say.map { $0["event"] as! String }.last == "step.finished")
        #expect(
            say.contains {
                $0["event"] as? String == "step.output" && $0["line"] as? String == "hi"
                    && $0["stream"] as? String == "stdout"
            })
        #expect(
            say.contains { $0["line"] as? String == "there" && $0["stream"] as? String == "stderr" }
        )
        #expect(
            say.allSatisfy {
                $0["path"] as? [String] == ["inner"]
                    && ($0["time"] as? String)?.hasSuffix("Z") == true
            })
    }

    @Test func dryRunPrintsThePlanInOrderAndRunsNothing() throws {
        let fixture = try WorkflowFixture(
            """
            {"name": "plan", "procedures": [
              {"id": "second", "kind": "shell", "run": "touch made", "dependsOn": ["first"]},
              {"id": "first", "kind": "shell", "argv": ["true"]}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--dry-run"])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                plan for plan: 2 steps, in order
                1. first [run: true]
                2. second [shell: touch made]: after first

                """)
        #expect(fixture.contents("made") == nil)
    }

    @Test func onlyRunsTheStepAndWhatItNeeds() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "base", "kind": "shell", "run": "echo base >> log"},
              {"id": "target", "kind": "shell", "run": "echo target >> log", "dependsOn": ["base"]},
              {"id": "unrelated", "kind": "shell", "run": "echo unrelated >> log"}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--only", "target"])
        #expect(result.status == 0)
        #expect(fixture.contents("log") == "base\ntarget\n")
        let unknown = try fixture.run(["--only", "targt"])
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr.hasPrefix(
                "error: --only targt: no such procedure (did you mean \"target\"?)"))
    }

    @Test func maxConcurrentLimitsHowManyRunAtOnce() throws {
        let steps = (0..<4).map {
            #"{"id": "s\#($0)", "kind": "shell", "run": "echo start >> log; sleep 0.1; echo end >> log"}"#
        }
        let fixture = try WorkflowFixture(#"{"procedures": [\#(steps.joined(separator: ","))]}"#)
        defer { fixture.remove() }
        #expect(try fixture.run(["--max-concurrent", "1"]).status == 0)
        #expect(fixture.contents("log") == String(repeating: "start\nend\n", count: 4))
    }

    @Test func prefixedOutputAndTheSummary() throws {
        let fixture = try WorkflowFixture(
            """
            {"name": "demo", "procedures": [
              {"id": "hello", "kind": "shell", "run": "echo hello world"},
              {"id": "nope", "kind": "shell", "run": "echo bad >&2; exit 3"}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run()
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "procflow: running demo, 2 steps")
        #expect(lines.contains("hello hello world"))
        // Prefixes are padded to the longest id, so that output lines align.
        #expect(lines.contains("nope  bad"))
        #expect(
            lines.contains {
                $0.hasPrefix("nope  ✗ failed after ") && $0.hasSuffix(": exited with status 3")
            })
        #expect(lines.contains("nope    │ bad"))
        #expect(lines.contains { $0.hasPrefix("  hello  succeeded  ") })
        #expect(
            lines.contains {
                $0.hasPrefix("  nope   failed     ") && $0.hasSuffix("exited with status 3")
            })
        #expect(lines.last?.hasPrefix("demo failed in ") == true)
        #expect(lines.last?.hasSuffix(": 1 succeeded, 1 failed") == true)
        #expect(!result.stdout.contains("\u{1B}["))
    }

    @Test func groupedOutputForCIAndGitHubActions() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "ok", "kind": "shell", "run": "echo one; echo two"},
              {"id": "bad", "kind": "shell", "run": "echo why >&2; exit 2"}
            ]}
            """)
        defer { fixture.remove() }
        let plain = try fixture.run(["--output", "grouped"])
        #expect(plain.stdout.contains("=== ok: succeeded in "))
        #expect(plain.stdout.contains("one\ntwo\n"))
        let github = try fixture.run(
            ["--output", "grouped"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(github.stdout.contains("::group::ok: succeeded in "))
        #expect(github.stdout.contains("one\ntwo\n::endgroup::"))
        #expect(github.stdout.contains("::error title=bad failed::exited with status 2 — why"))
    }

    @Test func groupedOutputInGitLabCIIsCollapsibleSectionsWithFailuresExpanded() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "ok", "kind": "shell", "run": "echo one; sleep 1.1; echo two"},
              {"id": "bad", "kind": "shell", "run": "echo why >&2; exit 2"},
              {"id": "meh", "kind": "shell", "run": "exit 1", "continueOnError": true}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--output", "grouped"], environment: ["GITLAB_CI": "true"])
        #expect(result.status == 1)
        func section(_ id: String) throws -> (start: Int, end: Int, head: String, body: String) {
            let pattern = try Regex(
                "\u{1B}\\[0Ksection_start:([0-9]+):procflow_\(id)(\\[collapsed=true\\])?\r\u{1B}\\[0K([^\n]*)\n((?s).*?)\u{1B}\\[0Ksection_end:([0-9]+):procflow_\(id)\r\u{1B}\\[0K\n"
            )
            let match = try #require(result.stdout.firstMatch(of: pattern))
            let head = String(match.output[3].substring ?? "")
            return (
                Int(match.output[1].substring ?? "")!, Int(match.output[5].substring ?? "")!,
                (match.output[2].substring == nil ? "" : "[collapsed=true]") + head,
                String(match.output[4].substring ?? "")
            )
        }
        let ok = try section("ok")
        #expect(ok.head.hasPrefix("[collapsed=true]ok: succeeded in "))
        #expect(ok.body == "one\ntwo\n")
        #expect(ok.end >= ok.start + 1)
        let bad = try section("bad")
        #expect(bad.head.hasPrefix("bad: failed after "))
        #expect(bad.body == "[stderr] why\n")
        #expect(try section("meh").head.hasPrefix("meh: failed (continuing) after "))
        #expect(!result.stdout.contains("::group::"))
    }
}

@Suite("Output edge cases")
struct OutputEdgeCaseTests {

    @Test func aClosedStandardOutputDoesNotStopTheRun() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "chatty", "kind": "shell", "run": "seq 1 50000"},
              {"id": "later", "kind": "shell", "run": "sleep 0.3; echo done > later.txt"}
            ]}
            """)
        defer { fixture.remove() }
        let process = Process()
        process.executableURL = procflowBinary
        process.arguments = ["run", fixture.file]
        process.currentDirectoryURL = fixture.directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        try output.fileHandleForReading.close()  // as `procflow run … | head -0` would
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(fixture.contents("later.txt") == "done\n")
    }

    @Test func groupedOutputKeepsTheLatestLinesOfAHugeStep() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [{"id": "flood", "kind": "shell", "run": "seq 1 1500000"}]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--output", "grouped"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("earlier lines not kept\n"))
        #expect(result.stdout.contains("\n1500000\n"))
    }
}

import Foundation
import Testing

@testable import Procflow

@Suite("forEach")
struct ForEachTests {

    @Test(arguments: [0, 1, 1000])
    func aWiredListFansOutAndTheOutputsFanInInOrder(count: Int) throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "list", "kind": "shell", "run": "seq 1 \(count) | sed 's/.*/{\\"n\\": &}/' | paste -sd, | sed 's/^/{\\"items\\": [/; s/$/]}/'", "output": "json"},
              {"id": "each", "kind": "shell", "forEach": {"from": "list", "select": "/items", "as": "entry"},
               "argv": ["sh", "-c", "printf '%s' $(( $1 * 2 ))", "double", "${entry.n}"], "output": "json"},
              {"id": "sum", "kind": "shell", "run": "tr -d '[]' | tr , '\\\\n' | awk '{s += $1} END {printf \\"%d\\", s}'",
               "input": {"from": "each"}, "output": "text"},
              {"id": "save", "kind": "file", "op": "write", "path": "out.json", "input": {"from": "each"}},
              {"id": "total", "kind": "file", "op": "write", "path": "sum", "input": {"from": "sum"}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.run(["--events", "json", "--max-concurrent", "4"])
            .parsed()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            fixture.contents("out.json") == "["
                + (1...max(1, count)).prefix(count).map { "\($0 * 2)" }.joined(separator: ",") + "]"
        )
        #expect(fixture.contents("sum") == "\(count * (count + 1))")
        let instances = statuses(events).keys.filter { $0.hasPrefix("each[") }
        #expect(instances.count == count)
        if count > 0 {
            #expect(statuses(events)["each[\(count - 1)]"] == "succeeded")
        }
    }

    @Test func listsAndMatricesGiveEachInstanceItsItem() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "greet", "kind": "shell", "forEach": {"in": ["a b", "c"]},
               "run": "printf '<%s>' \\"$item\\"", "output": "text"},
              {"id": "build", "kind": "file", "op": "write",
               "forEach": {"matrix": {"os": ["linux", "mac"], "arch": ["x86", "arm"]}},
               "path": "out/${item.os}-${item.arch}", "content": "${item.os} on ${item.arch}"},
              {"id": "show", "kind": "file", "op": "write", "path": "greet.json", "input": {"from": "greet"}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.contents("greet.json") == #"["<a b>","<c>"]"#)
        #expect(fixture.contents("out/mac-arm") == "mac on arm")
        #expect(fixture.contents("out/linux-x86") == "linux on x86")
        #expect(statuses(events)["build[3]"] == "succeeded")
        #expect(statuses(events)["build[4]"] == nil)
    }

    @Test func aFailedInstanceFailsTheStepUnlessItContinuesOnError() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "strict", "kind": "shell", "forEach": {"in": [0, 3, 0]}, "run": "exit $item"},
              {"id": "after", "kind": "shell", "run": "true", "dependsOn": ["strict"]},
              {"id": "lenient", "kind": "shell", "forEach": {"in": [1, 2]}, "continueOnError": true,
               "run": "test $item = 1 && printf 1 || exit 1", "output": "json"},
              {"id": "take", "kind": "file", "op": "write", "path": "lenient.json", "input": {"from": "lenient"}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        #expect(statuses(events)["strict[1]"] == "failed")
        #expect(statuses(events)["strict[0]"] == "succeeded")
        #expect(statuses(events)["strict[2]"] == "succeeded")
        #expect(statuses(events)["strict"] == "failed")
        #expect(reasons(events)["strict"] == "strict[1] failed: exited with status 3")
        #expect(statuses(events)["after"] == "skipped")
        #expect(statuses(events)["lenient[1]"] == "warning")
        #expect(fixture.contents("lenient.json") == "[1,null]")
    }

    @Test func anItemWithoutAFieldIsAToleratedFailureWithContinueOnError() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "list", "kind": "shell", "run": "printf '[{\\"os\\": \\"x\\"}, 2]'", "output": "json"},
              {"id": "each", "kind": "shell", "forEach": {"from": "list"}, "continueOnError": true,
               "argv": ["printf", "%s", "${item.os}"], "output": "text"},
              {"id": "take", "kind": "file", "op": "write", "path": "each.json", "input": {"from": "each"}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(statuses(events)["each[1]"] == "warning")
        #expect(reasons(events)["each[1]"] == #"item 1 has no field "os" (${item.os})"#)
        #expect(fixture.contents("each.json") == #"["x",null]"#)
    }

    @Test func reportsListTheInstancesAfterTheirStep() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "list", "kind": "shell", "run": "printf '[1, 2]'", "output": "json"},
              {"id": "each", "kind": "shell", "forEach": {"from": "list"}, "run": "true"},
              {"id": "last", "kind": "shell", "run": "true", "dependsOn": ["each"]}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--summary", "summary.json", "--junit", "junit.xml"])
        #expect(result.status == 0)
        let summary =
            try JSONSerialization.jsonObject(
                with: Data((fixture.contents("summary.json") ?? "").utf8)) as? [String: Any]
        let ids = (summary?["steps"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(ids == ["list", "each", "each[0]", "each[1]", "last"])
        #expect(fixture.contents("junit.xml")?.contains(#"name="each[1]""#) == true)
    }

    @Test func theRunLimitAppliesToInstances() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "busy", "kind": "shell", "forEach": {"in": [1, 2, 3, 4, 5, 6]},
               "run": "echo s >> log; sleep 0.2; echo e >> log"}
            ]}
            """)
        defer { fixture.remove() }
        #expect(try fixture.run(["--max-concurrent", "2"]).status == 0)
        #expect(highestConcurrency(fixture.contents("log")) == 2)
    }

    @Test func aRunningForEachIsCancelledCleanly() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "slow", "kind": "shell", "forEach": {"in": [0, 1]},
               "run": "echo $$ > pid$item; sleep 300"}
            ]}
            """)
        defer { fixture.remove() }
        let running = try RunningProcflow(fixture)
        #expect(
            eventually(timeout: 30) { recordedGroups(in: fixture.directory, count: 2).count == 2 })
        let groups = recordedGroups(in: fixture.directory, count: 2)
        kill(running.process.processIdentifier, SIGINT)
        let output = running.finish(timeout: 30)
        #expect(running.process.terminationStatus == 130)
        #expect(output.contains("slow[0] ✗ cancelled: interrupted by SIGINT (2)"))
        for group in groups {
            #expect(eventually(timeout: 10) { !ProcessGroups.isAlive(group) })
        }
    }

    @Test(arguments: [
        (
            #"{"id": "a", "kind": "shell", "forEach": {"in": [{"os": "x"}, {}]}, "argv": ["echo", "${item.os}"]}"#,
            #"test.json:1:57: error: /procedures/0/forEach: item 1 has no field "os" (${item.os})"#
        ),
        (
            #"{"id": "a", "kind": "shell", "forEach": {"in": [1], "matrix": {"x": [1]}}, "run": "true"}"#,
            #"test.json:1:57: error: /procedures/0/forEach: a forEach takes one of "in", "matrix" and "from", not "in" and "matrix""#
        ),
        (
            #"{"id": "t", "kind": "shell", "run": "echo", "output": "text"}, {"id": "a", "kind": "shell", "forEach": {"from": "t"}, "run": "true"}"#,
            #"test.json:1:129: error: /procedures/1/forEach/from: a forEach takes its items from a JSON list, and "t" gives text (set "output": "json" on it)"#
        ),
        (
            #"{"id": "g", "kind": "group", "forEach": {"in": [1]}, "procedures": [{"id": "a", "kind": "shell", "forEach": {"in": [2]}, "run": "true"}]}"#,
            #"test.json:1:125: error: /procedures/0/procedures/0/forEach: a forEach cannot be inside another forEach: use a "matrix""#
        ),
    ])
    func mistakesAreLocated(procedures: String, expected: String) {
        #expect(diagnostics(workflow(procedures)) == [expected])
    }
}

extension CommandResult {
    /// The NDJSON events of a run with `--events json`.
    func parsed() -> (CommandResult, [[String: Any]]) {
        let events = stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return (self, events)
    }
}

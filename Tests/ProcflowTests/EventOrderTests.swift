import Foundation
import Testing

@testable import Procflow

/// The events of one step, by name, in order.
private func names(_ events: [[String: Any]], step: String) -> [String] {
    events.filter { $0["step"] as? String == step }.compactMap { $0["event"] as? String }
}

/// The position of the first event named `name` (any, if `nil`) of `step`.
private func index(
    _ events: [[String: Any]], _ step: String, _ name: String? = nil
) -> Int? {
    events.firstIndex {
        $0["step"] as? String == step && (name == nil || $0["event"] as? String == name)
    }
}

/// The events that end a step.
private let endings: Set<String> = [
    "step.finished", "step.failed", "step.skipped", "step.cancelled",
]

@Suite("Events in causal order")
struct EventOrderTests {

    @Test(arguments: 1...5)
    func aFailureComesBeforeTheSkipsItCausesAndASourceEndsBeforeItsReaders(round: Int) throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "src", "kind": "shell", "run": "exit 3", "output": "text"},
              {"id": "reader", "kind": "shell", "run": "cat", "input": {"from": "src"}},
              {"id": "after", "kind": "shell", "run": "true", "dependsOn": ["reader"]},
              {"id": "ok", "kind": "shell", "run": "printf a", "output": "text"},
              {"id": "reader2", "kind": "shell", "run": "cat", "input": {"from": "ok"}},
              {"id": "env", "kind": "shell", "run": "true", "inputs": {"A": {"from": "src"}}}
            ]}
            """)
        defer { fixture.remove() }
        let (_, events) = try fixture.events()
        let failed = try #require(index(events, "src", "step.failed"))
        #expect(try #require(index(events, "reader")) > failed)
        #expect(try #require(index(events, "env")) > failed)
        #expect(try #require(index(events, "after")) > failed)
        #expect(try #require(index(events, "after")) > #require(index(events, "reader")))
        let finished = try #require(index(events, "ok", "step.finished"))
        #expect(try #require(index(events, "reader2")) > finished)
        // Nothing of a step comes after its end.
        for step in ["src", "reader", "after", "ok", "reader2", "env"] {
            let list = names(events, step: step)
            #expect(list.filter(endings.contains).count == 1, "\(step): \(list)")
            #expect(endings.contains(list.last ?? ""), "\(step): \(list)")
        }
    }

    @Test func theCasesABranchDidNotTakeAreReportedWhenItChooses() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "value", "kind": "shell", "run": "printf a", "output": "text"},
              {"id": "pick", "kind": "branch", "on": {"from": "value"}, "cases": [
                {"equals": "a", "procedures": [{"id": "taken", "kind": "shell", "run": "sleep 0.3"}]},
                {"equals": "b", "procedures": [
                  {"id": "other", "kind": "shell", "run": "true"},
                  {"id": "nested", "kind": "group", "procedures": [{"id": "deep", "kind": "shell", "run": "true"}]}
                ]}
              ], "otherwise": [{"id": "fallback", "kind": "shell", "run": "true"}]},
              {"id": "never", "kind": "branch", "on": {"from": "value"}, "when": {"env": "PROCFLOW_TEST_UNSET"},
               "cases": [{"equals": "a", "procedures": [{"id": "inside", "kind": "shell", "run": "true"}]}]},
              {"id": "late", "kind": "shell", "run": "sleep 0.5"}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0)
        let started = try #require(index(events, "taken", "step.started"))
        for step in ["other", "nested", "deep", "fallback"] {
            let skipped = try #require(index(events, step, "step.skipped"))
            #expect(skipped < started, "\(step)")
        }
        #expect(reasons(events)["deep"] == #"branch pick took the case = "a""#)
        // A branch that never runs: its steps right after it, long before the run ends.
        let never = try #require(index(events, "never", "step.skipped"))
        let inside = try #require(index(events, "inside", "step.skipped"))
        #expect(inside > never)
        #expect(inside < index(events, "late", "step.finished")!)
        #expect(reasons(events)["inside"] == "branch never did not run")
    }

    /// The same whether the step is incremental (its wrapper announces no start of its own)
    /// or not.
    @Test(arguments: [false, true])
    func retriesStartEachAttemptAndTellHowLongTheFailedOneRanAndTheBackoff(incremental: Bool)
        throws
    {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "flaky", "kind": "shell", "cache": \(incremental),
               "run": "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; sleep 0.1; [ $n -ge 3 ]",
               "retry": {"attempts": 4, "backoff": "constant", "delay": 0.2}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0)
        let mine = events.filter {
            $0["step"] as? String == "flaky" && $0["event"] as? String != "step.output"
        }
        #expect(
            mine.map { $0["event"] as! String } == [
                "step.started", "step.retried", "step.waited", "step.started", "step.retried",
                "step.waited", "step.started", "step.finished",
            ])
        let starts = mine.filter { $0["event"] as? String == "step.started" }
        #expect(starts.map { $0["attempt"] as? Int } == [1, 2, 3])
        #expect(starts.allSatisfy { $0["attempts"] as? Int == 4 })
        let retries = mine.filter { $0["event"] as? String == "step.retried" }
        #expect(retries.allSatisfy { ($0["duration"] as? Double ?? 0) >= 0.09 })
        let waits = mine.filter { $0["event"] as? String == "step.waited" }
        #expect(waits.allSatisfy { $0["wait"] as? String == "backoff" })
        #expect(waits.allSatisfy { ($0["duration"] as? Double ?? 0) >= 0.19 })
    }

    @Test func conditionsAndMutexesAreWaitsBeforeTheStepStarts() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "gated", "kind": "shell", "run": "true", "when": {"command": "sleep 0.2; false"}},
              {"id": "first", "kind": "shell", "run": "sleep 0.3", "mutex": "m"},
              {"id": "second", "kind": "shell", "run": "sleep 0.3", "mutex": "m"}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events(["--max-concurrent", "4"])
        #expect(result.status == 0)
        #expect(names(events, step: "gated").prefix(2) == ["step.waited", "step.skipped"])
        let condition = try #require(events.first { $0["step"] as? String == "gated" })
        #expect(condition["wait"] as? String == "condition")
        #expect((condition["duration"] as? Double ?? 0) >= 0.19)
        let mutexWaits = events.filter {
            $0["event"] as? String == "step.waited" && $0["wait"] as? String == "mutex"
        }
        #expect(Set(mutexWaits.compactMap { $0["step"] as? String }) == ["first", "second"])
        #expect(mutexWaits.contains { ($0["duration"] as? Double ?? 0) >= 0.25 })
        for step in ["first", "second"] {
            #expect(names(events, step: step).prefix(2) == ["step.waited", "step.started"])
        }
    }

    @Test func dryRunWithJSONEventsPrintsThePlanAsJSON() throws {
        let fixture = try WorkflowFixture(
            """
            {"name": "plan", "procedures": [
              {"id": "second", "kind": "shell", "run": "touch made", "dependsOn": ["first"], "retry": {"attempts": 2}},
              {"id": "first", "kind": "shell", "argv": ["true"], "mutex": "m", "timeout": 5},
              {"id": "pack", "kind": "group", "procedures": [{"id": "inner", "kind": "file", "op": "read", "path": "x"}]}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--dry-run", "--events", "json"])
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").count == 1)
        let plan = try #require(
            JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(plan["event"] as? String == "workflow.plan")
        #expect(plan["workflow"] as? String == "plan")
        let steps = try #require(plan["steps"] as? [[String: Any]])
        #expect(steps.map { $0["id"] as? String } == ["first", "second", "pack", "inner"])
        #expect(steps[0]["does"] as? String == "run: true")
        #expect(steps[0]["mutex"] as? [String] == ["m"])
        #expect(steps[0]["timeout"] as? Double == 5)
        #expect(steps[1]["after"] as? [String] == ["first"])
        #expect(steps[1]["attempts"] as? Int == 2)
        #expect(steps[3]["path"] as? [String] == ["pack"])
        #expect(steps[3]["kind"] as? String == "file")
        #expect(fixture.contents("made") == nil)
    }
}

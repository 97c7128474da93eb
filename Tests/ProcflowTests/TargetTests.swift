import Foundation
import Testing

@testable import Procflow

@Suite("Targets")
struct TargetTests {
    static let workflow = """
        {"procedures": [
          {"id": "gen", "kind": "shell", "run": "echo gen >> log"},
          {"id": "build", "kind": "shell", "run": "echo build >> log", "dependsOn": ["gen"]},
          {"id": "test", "kind": "shell", "run": "echo test >> log", "dependsOn": ["build"]},
          {"id": "lint", "kind": "shell", "run": "echo lint >> log"},
          {"id": "docs", "kind": "group", "procedures": [
            {"id": "api", "kind": "shell", "run": "echo api >> log"},
            {"id": "guide", "kind": "shell", "run": "echo guide >> log", "dependsOn": ["api"]}]}
        ]}
        """

    @Test func theNamedStepsRunWithWhatTheyNeedAndNothingElse() throws {
        let fixture = try WorkflowFixture(Self.workflow)
        defer { fixture.remove() }
        let (result, events) = try fixture.events(["test", "lint", "guide"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            Set(statuses(events).keys) == ["gen", "build", "test", "lint", "docs", "api", "guide"])
        let log = Set((fixture.contents("log") ?? "").split(separator: "\n").map(String.init))
        #expect(log == ["gen", "build", "test", "lint", "api", "guide"])
    }

    @Test func aGroupTargetRunsAllItHolds() throws {
        let fixture = try WorkflowFixture(Self.workflow)
        defer { fixture.remove() }
        #expect(try fixture.run(["docs"]).status == 0)
        #expect(fixture.contents("log") == "api\nguide\n")
    }

    @Test func aTargetThatNeedsAGroupGetsAllTheGroupHoldsAndItsData() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "pack", "kind": "group", "outputFrom": "b", "procedures": [
                {"id": "a", "kind": "shell", "run": "echo a >> log"},
                {"id": "b", "kind": "shell", "run": "printf packed", "output": "text"}]},
              {"id": "ship", "kind": "shell", "run": "printf %s $P > shipped",
               "inputs": {"P": {"from": "pack"}}},
              {"id": "other", "kind": "shell", "run": "echo other >> log"}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["ship"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.contents("shipped") == "packed")
        #expect(fixture.contents("log") == "a\n")
    }

    @Test func anUnknownTargetIsAUsageErrorWithASuggestion() throws {
        let fixture = try WorkflowFixture(Self.workflow)
        defer { fixture.remove() }
        let result = try fixture.run(["test", "lnt"])
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                #"error: no procedure "lnt" in flow.json (did you mean "lint"?)"#))
        #expect(result.stderr.hasSuffix("\nSee 'procflow help run'.\n"))
        #expect(fixture.contents("log") == nil)
    }
}

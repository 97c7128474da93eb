import Foundation
import Testing

@testable import Procflow

@Suite("Includes")
struct IncludeTests {
    /// A main workflow and the files it includes, written to a fresh directory.
    static func fixture(_ main: String, _ files: [String: String]) throws -> WorkflowFixture {
        let fixture = try WorkflowFixture(main)
        for (name, text) in files {
            let url = fixture.directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return fixture
    }

    static let tests = """
        {"vars": {"level": "slow"},
         "env": {"SUITE": "ci"},
         "maxConcurrency": 1,
         "procedures": [
          {"id": "unit", "kind": "shell", "run": "printf '%s %s %s' \\"$level\\" \\"$SUITE\\" \\"$B\\"", "output": "text",
           "inputs": {"B": {"from": "build"}}},
          {"id": "lint", "kind": "shell", "run": "true", "dependsOn": ["unit"]}
         ]}
        """

    @Test func includedStepsJoinUnderTheirPrefixAndWireBothWays() throws {
        let fixture = try Self.fixture(
            """
            {"vars": {"mode": "fast"},
             "include": [{"path": "ci/tests.json", "as": "tests", "vars": {"level": "${mode}"}}],
             "procedures": [
              {"id": "build", "kind": "shell", "run": "printf built", "output": "text"},
              {"id": "report", "kind": "file", "op": "write", "path": "report.txt",
               "input": {"from": "tests.unit"}, "dependsOn": ["tests"]}
             ]}
            """, ["ci/tests.json": Self.tests])
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            statuses(events) == [
                "build": "succeeded", "report": "succeeded", "tests": "succeeded",
                "tests.unit": "succeeded", "tests.lint": "succeeded",
            ])
        // The includer set the included file's variable; the included `env` reached its step.
        #expect(fixture.contents("report.txt") == "fast ci built")
        let graph = try runProcflow(["graph", fixture.file], in: fixture.directory)
        #expect(graph.stdout.contains("tests [include ci/tests.json]\n  tests.unit [shell]"))
        let dot = try runProcflow(
            ["graph", fixture.file, "--format", "dot"], in: fixture.directory)
        #expect(dot.stdout.contains(#"label="tests (include ci/tests.json)";"#))
    }

    @Test func problemsAreReportedInTheFileWhereTheyAre() throws {
        let fixture = try Self.fixture(
            """
            {"include": [{"path": "ci/bad.json", "as": "bad", "vars": {"zz": "1"}},
                         {"path": "ci/none.json", "as": "none"}],
             "procedures": [{"id": "m", "kind": "shell", "run": "true", "dependsOn": ["bad.x", "bad.q"]}]}
            """,
            [
                "ci/bad.json": """
                {"procedures": [
                  {"id": "x", "kind": "shell", "run": "true", "dependsOn": ["nope"]},
                  {"id": "y", "kind": "shell", "runn": "true"}
                ]}
                """
            ])
        defer { fixture.remove() }
        let result = try runProcflow(["validate", fixture.file], in: fixture.directory)
        #expect(result.status == 2)
        #expect(
            result.stderr.withoutSnippets == """
                flow.json:1:59: error: /include/0/vars/zz: ci/bad.json declares no variable "zz"
                flow.json:2:14: error: /include/1/path: cannot read the included file ci/none.json: No such file or directory
                flow.json:3:84: error: /procedures/0/dependsOn/1: unknown procedure "bad.q" (did you mean "bad.x"?)
                ci/bad.json:2:61: error: /procedures/0/dependsOn/0: unknown procedure "nope"
                ci/bad.json:3:3: error: /procedures/1: missing field "run" (or "argv"): the command a shell procedure runs
                ci/bad.json:3:32: error: /procedures/1/runn: unknown field "runn" in a shell procedure (did you mean "run"?)
                flow.json: 6 errors

                """)
    }

    @Test func anIncludeCycleIsAnError() throws {
        let fixture = try Self.fixture(
            """
            {"include": [{"path": "a.json", "as": "a"}],
             "procedures": [{"id": "m", "kind": "shell", "run": "true"}]}
            """,
            [
                "a.json":
                    #"{"include": [{"path": "b.json", "as": "b"}], "procedures": [{"id": "x", "kind": "shell", "run": "true"}]}"#,
                "b.json":
                    #"{"include": [{"path": "a.json", "as": "again"}], "procedures": [{"id": "y", "kind": "shell", "run": "true"}]}"#,
            ])
        defer { fixture.remove() }
        let result = try runProcflow(["validate", fixture.file], in: fixture.directory)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                "b.json:1:14: error: /include/0/path: include cycle: a.json -> b.json -> a.json\n"))
    }

    @Test func anIncludeNameThatIsAlreadyAnIdIsADuplicate() throws {
        let fixture = try Self.fixture(
            """
            {"include": [{"path": "ci/tests.json", "as": "build"}],
             "procedures": [{"id": "build", "kind": "shell", "run": "true"}]}
            """, ["ci/tests.json": Self.tests])
        defer { fixture.remove() }
        let result = try runProcflow(["validate", fixture.file], in: fixture.directory)
        #expect(result.status == 2)
        #expect(result.stderr.contains(#"/include/0/as: duplicate id "build""#))
    }
}

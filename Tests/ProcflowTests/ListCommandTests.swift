import Foundation
import Testing

@testable import Procflow

@Suite("procflow list")
struct ListCommandTests {

    @Test func everyStepWithItsKindAndDescriptionIndentedByGroup() throws {
        let fixture = try WorkflowFixture(
            """
            {"name": "tasks", "procedures": [
              {"id": "build", "kind": "shell", "run": "make", "output": "text", "description": "Compile it all"},
              {"id": "pack", "kind": "group", "description": "Package it", "procedures": [
                {"id": "zip", "kind": "file", "op": "concat", "paths": ["a"], "description": "Zip\\nit"},
                {"id": "pick", "kind": "branch", "on": {"from": "build"}, "cases": [
                  {"equals": "x", "procedures": [{"id": "upload", "kind": "http", "url": "http://127.0.0.1:1/"}]}
                ], "otherwise": [{"id": "skip-it", "kind": "shell", "run": "true"}]}
              ]}
            ]}
            """)
        defer { fixture.remove() }
        let result = try runProcflow(["list", fixture.file], in: fixture.directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                Steps of tasks (6 steps):
                  build        shell                        # Compile it all
                  pack         group                        # Package it
                    zip        file concat                  # Zip\\nit
                    pick       branch
                      upload   http (when pick = "x")
                      skip-it  shell (when pick otherwise)

                """)
        #expect(fixture.contents("a") == nil)
    }

    @Test func anInvalidWorkflowIsReportedAsValidateReportsIt() throws {
        let fixture = try WorkflowFixture(#"{"procedures": [{"id": "a", "kind": "shell"}]}"#)
        defer { fixture.remove() }
        let result = try runProcflow(["list", fixture.file], in: fixture.directory)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix("flow.json:1:17: error: /procedures/0: missing field \"run\""))
        let help = try runProcflow(["--help"])
        #expect(
            help.stdout.contains(
                "  list                    List a workflow's steps with their kinds and descriptions.\n"
            ))
    }
}

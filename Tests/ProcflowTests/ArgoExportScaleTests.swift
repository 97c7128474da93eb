import Foundation
import Testing

@testable import Procflow

/// What the export makes of the features for workflows at scale: forEach, includes, dotenv.
@Suite("Argo export of workflows at scale")
struct ArgoExportScaleTests {

    @Test func aForEachAroundAGroupIsRefusedNamingTheStep() throws {
        let json = workflow(
            #"{"id": "each", "kind": "group", "forEach": {"in": [1, 2]}, "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#
        )
        do {
            _ = try exportManifest(json: json)
            Issue.record("a forEach around a group was exported")
        } catch let error as ArgoExportError {
            #expect(
                error.diagnostics.map(\.description) == [
                    #"test.json:1:17: error: /procedures/0/forEach: cannot export "each" to Argo: a forEach around a group has no Argo form in this exporter yet, only one around a shell step: run it with procflow, or loop over a shell step"#
                ])
        }
    }

    @Test func aProblemInAnIncludedFileIsLocatedThere() throws {
        let fixture = try IncludeTests.fixture(
            #"{"include": [{"path": "ci/more.json", "as": "more"}], "procedures": [{"id": "a", "kind": "http", "url": "http://x/"}]}"#,
            [
                "ci/more.json": """
                {"procedures": [
                  {"id": "slow", "kind": "group", "timeout": 5, "procedures": [
                    {"id": "b", "kind": "http", "url": "http://x/"}]}
                ]}
                """
            ])
        defer { fixture.remove() }
        let result = try runProcflow(
            ["export", fixture.file, "--to", "argo", "--image", "alpine"], in: fixture.directory)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                #"ci/more.json:2:3: error: /procedures/0/timeout: cannot export "more.slow" to Argo"#
            ),
            "\(result.stderr)")
    }

    @Test func dotenvValuesAreLeftOutWithAWarning() throws {
        let fixture = try WorkflowFixture(
            #"{"dotenv": [".env"], "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#)
        defer { fixture.remove() }
        try Data("TOKEN=secret\n".utf8).write(to: fixture.directory.appendingPathComponent(".env"))
        let result = try runProcflow(
            ["export", fixture.file, "--to", "argo", "--image", "alpine"], in: fixture.directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("secret"))
        #expect(result.stderr.contains("the variables of the dotenv files are not in the manifest"))
    }
}

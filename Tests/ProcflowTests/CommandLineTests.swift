import Foundation
import Testing

@testable import Procflow

@Suite("procflow command line")
struct CommandLineTests {

    @Test func validatePrintsASummaryAndExitsZero() throws {
        let result = try runProcflow(
            ["validate", "workflow.json"], in: fixtures.appendingPathComponent("graph"))
        #expect(result.status == 0)
        #expect(
            result.stdout
                == "workflow.json: valid workflow \"release\": 11 procedures (2 groups or branches), 10 edges\n"
        )
        #expect(result.stderr == "")
    }

    @Test func validateReportsErrorsOnStandardErrorAndExitsTwo() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(workflow(#"{"id": "a", "kind": "shell", "run": "x", "dependsOn": ["b"]}"#).utf8)
            .write(to: directory.appendingPathComponent("bad.json"))
        let result = try runProcflow(["validate", "bad.json"], in: directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr.withoutSnippets == """
                bad.json:1:72: error: /procedures/0/dependsOn/0: unknown procedure "b"
                bad.json: 1 error

                """)
    }

    @Test func aMissingFileIsAOneLineError() throws {
        let result = try runProcflow(["validate", "/nonexistent/flow.json"])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "/nonexistent/flow.json: error: cannot read the file: No such file or directory\n/nonexistent/flow.json: 1 error\n"
        )
    }

    @Test func helpAndVersion() throws {
        let help = try runProcflow(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("OVERVIEW: Run JSON workflows"))
        #expect(
            help.stdout.contains("  validate                Check a workflow without running it.\n")
        )
        let version = try runProcflow(["--version"])
        #expect(version.stdout == "\(CommandLineTool.version)\n")
        let commandHelp = try runProcflow(["help", "graph"])
        #expect(commandHelp.status == 0)
        #expect(
            commandHelp.stdout.contains(
                "USAGE: procflow graph [<file>] [--format <format>] [--var <name=value> ...] [--file <file>]"
            ))
        #expect(try runProcflow(["graph", "--help"]).stdout == commandHelp.stdout)
    }

    @Test(arguments: [
        (["frobnicate"], "error: Unknown subcommand 'frobnicate'"),
        (["valdate", "x.json"], "error: Unknown subcommand 'valdate' (did you mean 'validate'?)"),
        (["--frob"], "error: Unknown option '--frob'"),
        (["validate", "x.json", "--formt", "dot"], "error: Unknown option '--formt'"),
        (
            ["graph", "x.json", "--format", "svg"],
            "error: The value 'svg' is invalid for '--format <format>': expected one of text, dot, mermaid, json"
        ),
        (
            ["validate"],
            "error: no workflow file given, and no procflow.json (or procflow.jsonc) in /"
        ),
        (["validate", "a.json", "b.json"], "error: Unexpected argument 'b.json'"),
        (["graph", "x.json", "--format"], "error: Missing value for '--format <format>'"),
        (
            ["validate", "x.json", "--var", "novalue"],
            "error: The value 'novalue' is invalid for '--var <name=value>': expected name=value"
        ),
        (["help", "nothing"], "error: Unknown subcommand 'nothing'"),
        (
            ["run", "x.json", "--events", "json", "--output", "grouped"],
            "error: --events and --output cannot be used together"
        ),
        (
            ["run", "x.json", "--grace-period", "inf"],
            "error: The value 'inf' is invalid for '--grace-period <seconds>'"
        ),
    ])
    func usageErrorsExitTwoWithTheUsageOnStandardError(arguments: [String], message: String) throws
    {
        let result = try runProcflow(arguments, in: fixtures.appendingPathComponent("graph"))
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix(message))
        // The error, and where help is: two lines, not the whole usage.
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stderr)")
        #expect(lines.last?.hasPrefix("See 'procflow help") == true, "\(result.stderr)")
    }

    @Test func variablesCanBeOverridden() throws {
        let result = try runProcflow(
            ["validate", "workflow.json", "--var", "channel=stable"],
            in: fixtures.appendingPathComponent("graph"))
        #expect(result.status == 0)
        let unknown = try runProcflow(
            ["validate", "workflow.json", "--var", "chanel=stable"],
            in: fixtures.appendingPathComponent("graph"))
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr.contains(#"--var chanel: no such variable (did you mean "channel"?)"#))
    }
}

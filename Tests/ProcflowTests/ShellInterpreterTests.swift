import Foundation
import Testing

@testable import Procflow

/// A `run` script stops at its first failing line, whatever runs it; `shell` chooses what
/// does.
@Suite("Shell interpreters")
struct ShellInterpreterTests {

    /// Whether `/bin/sh` on this machine has `set -o pipefail`, asked independently.
    static let shHasPipefail: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "set -o pipefail 2>/dev/null"]
        try? process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    @Test func aFailingLineFailsAMultiLineScript() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "deploy", "kind": "shell", "run": "echo one\nfalse\necho deployed > deployed.txt"}]}"#
        )
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        #expect(statuses(events) == ["deploy": "failed"])
        #expect(!fixture.exists("deployed.txt"))
    }

    @Test func aFailureInAnIfOrAnAndListIsTheScriptsToHandle() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "s", "kind": "shell", "run": "if false; then echo no; fi\nfalse && echo no\necho reached > reached.txt"}]}"#
        )
        defer { fixture.remove() }
        #expect(try fixture.run().status == 0)
        #expect(fixture.contents("reached.txt") == "reached\n")
    }

    @Test func bashFailsAPipelineWhoseFirstCommandFails() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "b", "kind": "shell", "shell": "bash", "run": "exit 3 | cat; echo hidden > hidden.txt"}]}"#
        )
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        #expect(statuses(events) == ["b": "failed"])
        #expect(!fixture.exists("hidden.txt"))
    }

    @Test func shFailsAPipelineWhereItHasPipefail() throws {
        #expect(ShellProcedure.shHasPipefail == Self.shHasPipefail)
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "s", "kind": "shell", "run": "(exit 3) | cat; echo after > after.txt"}]}"#
        )
        defer { fixture.remove() }
        let result = try fixture.run()
        #expect(result.status == (Self.shHasPipefail ? 1 : 0))
        #expect(fixture.exists("after.txt") == !Self.shHasPipefail)
    }

    @Test func python3AndACommandPrefixRunTheScript() throws {
        let fixture = try WorkflowFixture(
            #"""
            {"procedures": [
              {"id": "py", "kind": "shell", "shell": "python3", "output": "json",
               "run": "import json, os\nprint(json.dumps({'v': os.environ['V']}))", "env": {"V": "1"}},
              {"id": "failing", "kind": "shell", "shell": "python3", "run": "import sys\nsys.exit(4)"},
              {"id": "prefix", "kind": "shell", "shell": ["bash", "-c"], "output": "text",
               "run": "printf '%s' \"$BASH_VERSION\" | head -c 1"}
            ]}
            """#)
        defer { fixture.remove() }
        let (result, events) = try fixture.events(["--summary", "s.json"])
        #expect(result.status == 1)
        #expect(
            statuses(events) == ["py": "succeeded", "failing": "failed", "prefix": "succeeded"])
        let summary = fixture.contents("s.json") ?? ""
        #expect(summary.contains("exited with status 4"))
    }

    @Test func changingTheShellRunsAnIncrementalStepAgain() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "s", "kind": "shell", "run": "echo s >> runs.log; echo x > out.txt", "generates": ["out.txt"]}]}"#
        )
        defer { fixture.remove() }
        #expect(try fixture.runSteps().ran == ["s"])
        #expect(try fixture.runSteps().ran == [])
        try fixture.edit(#""kind": "shell","#, #""kind": "shell", "shell": "bash","#)
        #expect(try fixture.runSteps().ran == ["s"])
    }

    @Test(arguments: [
        (
            #"{"id": "a", "kind": "shell", "shell": "zsh", "run": "true"}"#,
            #"test.json:1:55: error: /procedures/0/shell: unknown shell "zsh": expected "sh", "bash", "python3", or a command such as ["pwsh", "-Command"] that the script is appended to"#
        ),
        (
            #"{"id": "a", "kind": "shell", "shell": "bash", "argv": ["true"]}"#,
            #"test.json:1:55: error: /procedures/0/shell: "shell" runs a "run" script; "argv" runs its program without one"#
        ),
        (
            #"{"id": "a", "kind": "shell", "shell": [], "run": "true"}"#,
            #"test.json:1:55: error: /procedures/0/shell: expected a command as an array of strings starting with a program, such as ["pwsh", "-Command"]"#
        ),
        (
            #"{"id": "a", "kind": "shell", "shell": 3, "run": "true"}"#,
            #"test.json:1:55: error: /procedures/0/shell: expected "sh", "bash", "python3" or an array of strings, found a number"#
        ),
        (
            #"{"id": "a", "kind": "http", "shell": "bash", "url": "http://x"}"#,
            #"test.json:1:45: error: /procedures/0/shell: field "shell" does not apply to an http procedure (it belongs to shell procedures)"#
        ),
    ])
    func badShellFieldsAreLocatedErrors(procedure: String, expected: String) {
        let found = diagnostics(workflow(procedure))
        #expect(found.contains { $0.hasPrefix(expected) }, "\(found)")
    }
}

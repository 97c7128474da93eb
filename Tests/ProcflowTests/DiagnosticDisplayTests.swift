import Foundation
import Testing

@testable import Procflow

/// What `validate`, `run` and the other commands print for a located problem: the diagnostic,
/// then its line with a run of `^` under the text at fault; and the JSON a workflow file may
/// be written in (comments, trailing commas).
@Suite("Diagnostics as people read them")
struct DiagnosticDisplayTests {
    private func snippet(_ line: String, column: Int, number: Int = 7) -> String {
        DiagnosticSnippet.render(
            line: ArraySlice(Array(line.utf8)), number: number, column: column, colored: false)
    }

    @Test func aCaretRunUnderlinesTheTokenAtTheColumn() {
        #expect(
            snippet(#"  "dependsOn": ["compil"],"#, column: 17)
                == """
                 7 |   "dependsOn": ["compil"],
                   |                 ^^^^^^^^
                """)
        #expect(
            snippet(#"  "retries": 12.5e1 }"#, column: 14)
                == """
                 7 |   "retries": 12.5e1 }
                   |              ^^^^^^
                """)
        #expect(
            snippet("  {", column: 4)
                == """
                 7 |   {
                   |    ^
                """)
    }

    @Test func controlCharactersAreEscapedAndTheCaretsFollow() {
        #expect(
            snippet("\t\u{1B}\"x\": tru", column: 8, number: 12)
                == """
                 12 | \\t\\u{1B}"x": tru
                    |              ^^^
                """)
    }

    @Test func aLongLineIsCutAroundTheColumn() {
        let line =
            String(repeating: "a", count: 300) + "\"bad\"" + String(repeating: "b", count: 300)
        let shown = snippet(line, column: 301)
        let lines = shown.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix(" 7 | …aaa"))
        #expect(lines[0].hasSuffix("bbb…"))
        #expect(lines[0].count < 120)
        // The carets stand under the string.
        let text = lines[0].dropFirst(5)
        let carets = lines[1].dropFirst(5)
        let start = carets.firstIndex(of: "^").map {
            carets.distance(from: carets.startIndex, to: $0)
        }!
        #expect(String(text.dropFirst(start).prefix(5)) == "\"bad\"")
        #expect(carets.filter { $0 == "^" }.count == 5)
    }

    @Test func aPartOfAHugeLineIsFoundAroundTheColumn() throws {
        for prefix in ["é", "a"] {
            let line =
                String(repeating: prefix, count: 100_000) + "\"bad\""
                + String(repeating: "z", count: 1_000)
            let text = SourceText(bytes: Array(("{\n" + line + "\n}").utf8))
            let excerpt = try #require(text.excerpt(line: 2, column: 100_001, radius: 400))
            #expect(excerpt.cutBefore && excerpt.cutAfter)
            #expect(excerpt.bytes.count <= 802)
            let scalars = Array(String(decoding: excerpt.bytes, as: UTF8.self).unicodeScalars)
            #expect(
                String(String.UnicodeScalarView(scalars[(excerpt.column - 1)...].prefix(5)))
                    == "\"bad\"")
            let shown = DiagnosticSnippet.render(
                line: excerpt.bytes, number: 2, column: excerpt.column, colored: false,
                cutBefore: excerpt.cutBefore, cutAfter: excerpt.cutAfter)
            #expect(shown.hasPrefix(" 2 | …"))
            #expect(shown.split(separator: "\n")[0].hasSuffix("z…"))
        }
    }

    @Test func validateShowsEachProblemsLine() throws {
        let fixture = try WorkflowFixture(
            """
            {
              // build, then test
              "procedures": [
                {"id": "build", "kind": "shel", "run": "make",},
                {"id": "test", "kind": "shell", "run": "make test", "dependsOn": ["biuld"]},
              ],
            }
            """)
        defer { fixture.remove() }
        let result = try runProcflow(["validate", fixture.file], in: fixture.directory)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                flow.json:4:29: error: /procedures/0/kind: unknown value "shel": expected one of "shell", "http", "file", "group", "branch" (did you mean "shell"?)
                 4 |     {"id": "build", "kind": "shel", "run": "make",},
                   |                             ^^^^^^
                flow.json:5:71: error: /procedures/1/dependsOn/0: unknown procedure "biuld"
                 5 |     {"id": "test", "kind": "shell", "run": "make test", "dependsOn": ["biuld"]},
                   |                                                                       ^^^^^^^
                flow.json: 2 errors

                """)
    }

    @Test func aSyntaxErrorPointsAtItsCause() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "a" "kind": "shell", "run": "true"}
            ]}
            """)
        defer { fixture.remove() }
        let result = try runProcflow(["validate", fixture.file], in: fixture.directory)
        #expect(
            result.stderr == """
                flow.json:2:13: error: invalid JSON: missing ',' after an object member
                 2 |   {"id": "a" "kind": "shell", "run": "true"}
                   |             ^
                flow.json: 1 error

                """)
    }

    @Test(arguments: ["\n", "\r\n"])
    func aYAMLFileIsToldInOneLine(lineEnd: String) throws {
        let fixture = try WorkflowFixture(
            ["# a pipeline", "name: build", "procedures:", "  - id: a", ""].joined(
                separator: lineEnd))
        defer { fixture.remove() }
        let result = try runProcflow(["validate", fixture.file], in: fixture.directory)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                "flow.json:1:1: error: this looks like YAML: procflow reads workflows written in JSON (with // comments and trailing commas)\n"
            ), "\(result.stderr)")
    }

    @Test func anIncludedFileMayHoldCommentsToo() throws {
        let fixture = try IncludeTests.fixture(
            #"{"include": [{"path": "ci/more.json", "as": "more"}], "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#,
            [
                "ci/more.json": """
                {"procedures": [
                  // the check
                  {"id": "check", "kind": "shell", "run": "true", "dependsOn": ["nope"]},
                ]}
                """
            ])
        defer { fixture.remove() }
        let result = try runProcflow(["validate", fixture.file], in: fixture.directory)
        #expect(
            result.stderr.hasPrefix(
                """
                ci/more.json:3:65: error: /procedures/0/dependsOn/0: unknown procedure "nope"
                 3 |   {"id": "check", "kind": "shell", "run": "true", "dependsOn": ["nope"]},
                   |                                                                 ^^^^^^
                """), "\(result.stderr)")
    }
}

/// A skip says which part of the condition was false.
@Suite("Why a condition was false")
struct ConditionReasonTests {
    @Test func theDecidingPartIsNamedNeverTheEnvironmentsValue() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "echo 0", "output": "json"},
              {"id": "b", "kind": "shell", "run": "true", "when": {"env": "PF_UNSET"}},
              {"id": "c", "kind": "shell", "run": "true", "when": {"all": [{"env": "PF_SECRET"}, {"exists": "nope.txt"}]}},
              {"id": "d", "kind": "shell", "run": "true", "when": {"any": [{"command": "exit 3"}, {"output": {"from": "a"}, "equals": 1}]}},
              {"id": "e", "kind": "shell", "run": "true", "when": {"not": {"env": "PF_SECRET"}}},
              {"id": "f", "kind": "shell", "run": "true", "when": {"env": "PF_SECRET", "equals": "guess"}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events(environment: ["PF_SECRET": "hunter2"])
        #expect(result.status == 0, "\(result.stderr)")
        let reasons = reasons(events)
        #expect(reasons["b"] == "its condition is false: env PF_UNSET is not set")
        #expect(reasons["c"] == "its condition is false: nope.txt does not exist")
        #expect(
            reasons["d"]
                == "its condition is false: command `exit 3` exited with a non-zero status and the output of a is not 1"
        )
        #expect(reasons["e"] == "its condition is false: env PF_SECRET is set")
        #expect(reasons["f"] == #"its condition is false: env PF_SECRET is not "guess""#)
        #expect(!result.stdout.contains("hunter2"))
    }
}

/// A command the shell cannot find reads as one `argv` cannot.
@Suite("Commands not found")
struct CommandNotFoundTests {
    @Test func throughTheShellAsThroughArgv() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "argv", "kind": "shell", "argv": ["pf-no-such-command", "x"]},
              {"id": "sh", "kind": "shell", "run": "true\\npf-no-such-command --flag"},
              {"id": "bash", "kind": "shell", "shell": "bash", "run": "pf-no-such-command"},
              {"id": "other", "kind": "shell", "run": "exit 127"}
            ]}
            """)
        defer { fixture.remove() }
        let (_, events) = try fixture.events()
        let reasons = reasons(events)
        #expect(reasons["argv"] == "command not found: pf-no-such-command")
        #expect(reasons["sh"] == "command not found: pf-no-such-command (line 2)")
        #expect(reasons["bash"] == "command not found: pf-no-such-command (line 1)")
        #expect(reasons["other"] == "exited with status 127")
    }
}

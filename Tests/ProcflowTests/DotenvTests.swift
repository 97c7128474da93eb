import Foundation
import Testing

@testable import Procflow

@Suite("dotenv files")
struct DotenvTests {

    @Test(arguments: [
        ("A=1", ["A=1"]),
        ("export A=1\nB = two words  ", ["A=1", "B=two words"]),
        ("# comment\n\nA=1 # trailing comment\nB=x#not a comment", ["A=1", "B=x#not a comment"]),
        ("A='single $KEEP \\n'", ["A=single $KEEP \\n"]),
        ("A=\"line\\nnext \\\"quoted\\\" \\$HOME\"", ["A=line\nnext \"quoted\" $HOME"]),
        ("A=\"two\nlines\" # after", ["A=two\nlines"]),
        ("EMPTY=\nQUOTED_EMPTY=''", ["EMPTY=", "QUOTED_EMPTY="]),
        ("A=1\r\nB=2\r\n", ["A=1", "B=2"]),
        ("A=first\nA=second", ["A=first", "A=second"]),
        ("_x9=$OTHER", ["_x9=$OTHER"]),
    ])
    func parses(text: String, expected: [String]) throws {
        let variables = try DotenvFile.parse(text).get()
        #expect(variables.map { "\($0.name)=\($0.value)" } == expected)
    }

    @Test(arguments: [
        ("A=1\n9B=2", "2:1: expected a variable name (letters, digits and '_', not first a digit)"),
        ("A 1", "1:3: expected '=' after A"),
        ("A=\"open", "1:3: unterminated double-quoted value"),
        ("A='x' y", "1:7: unexpected text after the closing quote"),
    ])
    func reportsWhereItIsWrong(text: String, expected: String) {
        guard case .failure(let problem) = DotenvFile.parse(text) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(
            "\(problem.location.line):\(problem.location.column): \(problem.message)" == expected)
    }

    @Test func variablesReachCommandsUnderTheEnvironmentAndTheWorkflow() throws {
        let fixture = try WorkflowFixture(
            """
            {"dotenv": [".env", {"path": ".env.local", "optional": true}, {"path": "missing.env", "optional": true}],
             "env": {"FROM_WORKFLOW": "workflow"},
             "procedures": [
              {"id": "show", "kind": "shell", "run": "printf '%s %s %s %s' \\"$ONLY_FILE\\" \\"$LOCAL\\" \\"$FROM_WORKFLOW\\" \\"$FROM_PROCESS\\"", "output": "text"},
              {"id": "save", "kind": "file", "op": "write", "path": "out", "input": {"from": "show"}}
            ]}
            """)
        defer { fixture.remove() }
        try Data("ONLY_FILE=file\nLOCAL=base\nFROM_WORKFLOW=dotenv\nFROM_PROCESS=dotenv\n".utf8)
            .write(to: fixture.directory.appendingPathComponent(".env"))
        try Data("LOCAL='local value'\n".utf8)
            .write(to: fixture.directory.appendingPathComponent(".env.local"))
        let result = try fixture.run([], environment: ["FROM_PROCESS": "process"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.contents("out") == "file local value workflow process")
    }

    @Test func missingAndMalformedFilesAreLocatedErrors() throws {
        let fixture = try WorkflowFixture(
            """
            {"dotenv": ["missing.env", "bad.env"],
             "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}
            """)
        defer { fixture.remove() }
        try Data("GOOD=1\nexport =x\n".utf8).write(
            to: fixture.directory.appendingPathComponent("bad.env"))
        let result = try runProcflow(["validate", fixture.file], in: fixture.directory)
        #expect(result.status == 2)
        #expect(
            result.stderr.withoutSnippets == """
                flow.json:1:13: error: /dotenv/0: cannot read the dotenv file missing.env: No such file or directory
                bad.env:2:8: error: expected a variable name (letters, digits and '_', not first a digit)
                flow.json: 2 errors

                """)
    }
}

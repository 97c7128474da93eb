import Foundation
import Testing

@testable import Procflow

/// One error class: a workflow file and exactly what `procflow validate` says of it.
struct ErrorCase: CustomTestStringConvertible, Sendable {
    let name: String
    let json: String
    let expected: [String]

    var testDescription: String { name }
}

@Suite("Workflow validation")
struct WorkflowValidationTests {

    static let cases: [ErrorCase] = [
        ErrorCase(
            name: "truncated JSON", json: "{\"procedures\": [\n  {\"id\": \"a\",",
            expected: [
                "test.json:2:14: error: invalid JSON: expected '\"' to start an object key, found the end of the file"
            ]),
        ErrorCase(
            name: "unknown field with a suggestion",
            json: workflow(#"{"id": "a", "kind": "shell", "run": "true", "dependson": []}"#),
            expected: [
                #"test.json:1:61: error: /procedures/0/dependson: unknown field "dependson" in a shell procedure (did you mean "dependsOn"?)"#
            ]),
        ErrorCase(
            name: "a field of another kind",
            json: workflow(#"{"id": "a", "kind": "shell", "run": "true", "url": "http://x"}"#),
            expected: [
                #"test.json:1:61: error: /procedures/0/url: field "url" does not apply to a shell procedure (it belongs to http procedures)"#
            ]),
        ErrorCase(
            name: "missing fields",
            json: workflow(#"{"kind": "shell"}"#),
            expected: [
                #"test.json:1:17: error: /procedures/0: missing field "id""#,
                #"test.json:1:17: error: /procedures/0: missing field "run" (or "argv"): the command a shell procedure runs"#,
            ]),
        ErrorCase(
            name: "wrong type",
            json: workflow(#"{"id": "a", "kind": "shell", "run": "true", "timeout": "30"}"#),
            expected: [
                #"test.json:1:72: error: /procedures/0/timeout: expected a number, found a string"#
            ]),
        ErrorCase(
            name: "unknown kind with a suggestion",
            json: workflow(#"{"id": "a", "kind": "shel", "run": "true"}"#),
            expected: [
                #"test.json:1:37: error: /procedures/0/kind: unknown value "shel": expected one of "shell", "http", "file", "group", "branch" (did you mean "shell"?)"#
            ]),
        ErrorCase(
            name: "duplicate ids",
            json: workflow(
                #"{"id": "a", "kind": "shell", "run": "x"}, {"id": "a", "kind": "shell", "run": "y"}"#
            ),
            expected: [
                #"test.json:1:66: error: /procedures/1/id: duplicate id "a": already used at line 1"#
            ]),
        ErrorCase(
            name: "unknown procedure with a suggestion",
            json: workflow(
                #"{"id": "compile", "kind": "shell", "run": "x"}, {"id": "test", "kind": "shell", "run": "y", "dependsOn": ["compil"]}"#
            ),
            expected: [
                #"test.json:1:123: error: /procedures/1/dependsOn/0: unknown procedure "compil" (did you mean "compile"?)"#
            ]),
        ErrorCase(
            name: "a dependency cycle",
            json: workflow(
                #"{"id": "a", "kind": "shell", "run": "x", "dependsOn": ["c"]}, {"id": "b", "kind": "shell", "run": "x", "dependsOn": ["a"]}, {"id": "c", "kind": "shell", "run": "x", "dependsOn": ["b"]}"#
            ),
            expected: [#"test.json:1:17: error: /procedures/0: dependency cycle: a -> b -> c -> a"#]
        ),
        ErrorCase(
            name: "a child that depends on its own group",
            json: workflow(
                #"{"id": "g", "kind": "group", "procedures": [{"id": "inner", "kind": "shell", "run": "x", "dependsOn": ["g"]}]}"#
            ),
            expected: [
                #"test.json:1:61: error: /procedures/0/procedures/0: dependency cycle: inner -> g -> inner"#
            ]),
        ErrorCase(
            name: "selecting from a text output",
            json: workflow(
                #"{"id": "a", "kind": "shell", "run": "x", "output": "text"}, {"id": "b", "kind": "shell", "run": "cat", "input": {"from": "a", "select": "/version"}}"#
            ),
            expected: [
                #"test.json:1:129: error: /procedures/1/input/select: cannot select /version from "a": its output is text, not JSON (set "output": "json" on it)"#
            ]),
        ErrorCase(
            name: "taking data from a procedure without output",
            json: workflow(
                #"{"id": "a", "kind": "shell", "run": "x"}, {"id": "b", "kind": "shell", "run": "cat", "input": {"from": "a"}}"#
            ),
            expected: [
                #"test.json:1:120: error: /procedures/1/input/from: "a" has no output to take: set "output" on it to "text" or "json""#
            ]),
        ErrorCase(
            name: "a malformed URL",
            json: workflow(#"{"id": "a", "kind": "http", "url": "localhost:8080/x"}"#),
            expected: [
                #"test.json:1:52: error: /procedures/0/url: "localhost:8080/x" is not a valid URL: expected http:// or https:// and a host"#
            ]),
        ErrorCase(
            name: "an empty command",
            json: workflow(#"{"id": "a", "kind": "shell", "run": "  "}"#),
            expected: [#"test.json:1:53: error: /procedures/0/run: "run" must not be empty"#]),
        ErrorCase(
            name: "a command of whitespace only, some of it not ASCII",
            json: workflow(#"{"id": "a", "kind": "shell", "run": "\u00a0\t "}"#),
            expected: [#"test.json:1:53: error: /procedures/0/run: "run" must not be empty"#]),
        ErrorCase(
            name: "an empty argv",
            json: workflow(#"{"id": "a", "kind": "shell", "argv": []}"#),
            expected: [
                #"test.json:1:54: error: /procedures/0/argv: "argv" must start with a program to run"#
            ]),
        ErrorCase(
            name: "an unknown variable",
            json: workflow(
                #"{"id": "a", "kind": "http", "url": "http://${hots}/"}"#,
                extra: #""vars": {"host": "x"}, "#),
            expected: [
                #"test.json:1:75: error: /procedures/0/url: unknown variable "hots" in ${hots} (did you mean "host"?)"#
            ]),
        ErrorCase(
            name: "depending on a step inside a branch case",
            json: workflow(
                #"{"id": "d", "kind": "shell", "run": "x", "output": "text"}, {"id": "b", "kind": "branch", "on": {"from": "d"}, "cases": [{"equals": "x", "procedures": [{"id": "inside", "kind": "shell", "run": "x"}]}]}, {"id": "after", "kind": "shell", "run": "x", "dependsOn": ["inside"]}"#
            ),
            expected: [
                #"test.json:1:279: error: /procedures/2/dependsOn/0: "inside" runs only if branch "b" takes its case, so "after" cannot depend on it; depend on "b" instead"#
            ]),
        ErrorCase(
            name: "a duplicate key",
            json: workflow(#"{"id": "a", "kind": "shell", "run": "x", "run": "y"}"#),
            expected: [#"test.json:1:58: error: /procedures/0/run: duplicate field "run""#]),
        ErrorCase(
            name: "a non-object root",
            json: "[1, 2]",
            expected: ["test.json:1:1: error: expected a workflow object, found an array"]),
        ErrorCase(
            name: "a bad JSON Pointer",
            json: workflow(
                #"{"id": "a", "kind": "shell", "run": "x", "output": "json"}, {"id": "b", "kind": "shell", "run": "cat", "input": {"from": "a", "select": "version"}}"#
            ),
            expected: [
                #"test.json:1:153: error: /procedures/1/input/select: "version" is not a JSON Pointer: it must be empty or start with '/' (and '~' must be escaped as ~0 or ~1)"#
            ]),
        ErrorCase(
            name: "a group binding a non-child",
            json: workflow(
                #"{"id": "x", "kind": "shell", "run": "x", "output": "text"}, {"id": "g", "kind": "group", "outputFrom": "x", "procedures": [{"id": "c", "kind": "shell", "run": "x"}]}"#
            ),
            expected: [
                #"test.json:1:120: error: /procedures/1/outputFrom: "x" is not a procedure of the group "g": bind a direct child"#
            ]),
        ErrorCase(
            name: "an input where none is taken",
            json: workflow(
                #"{"id": "x", "kind": "shell", "run": "x", "output": "text"}, {"id": "r", "kind": "file", "op": "read", "path": "a", "input": {"from": "x"}}"#
            ),
            expected: [#"test.json:1:141: error: /procedures/1/input: a file read takes no input"#]),
        ErrorCase(
            name: "a missing input",
            json: workflow(#"{"id": "s", "kind": "file", "op": "select", "pointer": "/a"}"#),
            expected: [
                #"test.json:1:17: error: /procedures/0: a select needs an "input" wired from another procedure"#
            ]),
    ]

    @Test(arguments: cases)
    func reportsTheErrorWithItsLocation(_ errorCase: ErrorCase) {
        #expect(diagnostics(errorCase.json) == errorCase.expected)
    }

    @Test func reportsEveryErrorOfAFileAtOnceInFileOrder() {
        let json = """
            {
              "procedures": [
                {"id": "a", "kind": "shell", "run": "x", "dependsOn": ["nope"]},
                {"id": "b", "kind": "shell", "rn": "x"},
                {"id": "c", "kind": "http", "url": "ftp://x"}
              ]
            }
            """
        #expect(
            diagnostics(json) == [
                #"test.json:3:60: error: /procedures/0/dependsOn/0: unknown procedure "nope""#,
                #"test.json:4:5: error: /procedures/1: missing field "run" (or "argv"): the command a shell procedure runs"#,
                #"test.json:4:34: error: /procedures/1/rn: unknown field "rn" in a shell procedure (did you mean "run"?)"#,
                #"test.json:5:40: error: /procedures/2/url: "ftp://x" is not a valid URL: expected http:// or https:// and a host"#,
            ])
    }

    @Test func variablesAreFilledInAndOverridden() throws {
        let json = workflow(
            #"{"id": "a", "kind": "http", "url": "http://${host}:${port}/x", "headers": {"X-Env": "${host}"}}"#,
            extra: #""vars": {"host": "localhost", "port": "80"}, "#)
        let workflow = try loadWorkflow(json, overrides: [("port", "8080")]).get()
        guard case .http(let http) = workflow.steps[0].kind else {
            Issue.record("not an http step")
            return
        }
        #expect(http.url == "http://localhost:8080/x")
        #expect(http.headers.map(\.value) == ["localhost"])
        #expect(workflow.variables.map(\.value) == ["localhost", "8080"])
    }

    /// Field names compare as Swift strings do, by canonical equivalence: a Kelvin sign is a
    /// "K", though it takes three bytes (the shortcuts that rule keys out by length must not
    /// change that).
    @Test func aFieldNameMatchesWhatIsCanonicallyEquivalentToIt() throws {
        let kelvin = "\u{212A}"
        let loaded = try loadWorkflow(
            workflow(
                #"{"id": "a", "kind": "shell", "run": "x", "cache"# + kelvin + #"ey": ["v1"]}"#)
        ).get()
        #expect(loaded.steps[0].caching.keyParts == [.text("v1")])
        #expect(
            diagnostics(
                workflow(
                    #"{"id": "a", "kind": "shell", "run": "x", "cacheKey": ["v1"], "cache"#
                        + kelvin + #"ey": ["v2"]}"#)
            ).first?.contains("duplicate field") == true)
    }

    /// An object's members past the 64th are marked read as the first ones are: a field read
    /// there is not reported, an unknown one is.
    @Test func fieldsPastTheSixtyFourthAreTrackedLikeTheFirst() {
        let unknown = (0..<70).map { #""x\#($0)": 1"# }.joined(separator: ", ")
        let reported = diagnostics(
            workflow(#"{"id": "a", "kind": "shell", "# + unknown + #", "run": "true"}"#))
        #expect(reported.count == 70)
        #expect(reported.allSatisfy { $0.contains("unknown field \"x") })
        #expect(reported.last?.contains("unknown field \"x69\"") == true)
    }

    @Test func anUnknownOverrideIsAnError() {
        #expect(
            diagnostics(
                workflow(
                    #"{"id": "a", "kind": "shell", "run": "x"}"#,
                    extra: #""vars": {"target": "x"}, "#), overrides: [("taget", "y")])
                == [
                    #"test.json: error: --var taget: no such variable (did you mean "target"?); it declares "target""#
                ])
    }

    @Test func scriptsAreNeverRewritten() throws {
        let workflow = try loadWorkflow(
            ProcflowTests.workflow(
                #"{"id": "a", "kind": "shell", "run": "echo ${target} ${HOME}"}"#,
                extra: #""vars": {"target": "x"}, "#)
        ).get()
        guard case .shell(let shell) = workflow.steps[0].kind,
            case .script(let script) = shell.command
        else {
            Issue.record("not a shell script")
            return
        }
        #expect(script == "echo ${target} ${HOME}")
    }

    @Test func aValidWorkflowLoadsEveryKind() throws {
        let url = fixtures.appendingPathComponent("graph/workflow.json")
        let workflow = try WorkflowLoader.load(path: url.path)
        #expect(workflow.name == "release")
        #expect(WorkflowGraph(workflow).nodes.count == 11)
    }
}

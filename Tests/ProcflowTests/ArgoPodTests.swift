import Foundation
import Testing

@testable import Procflow

/// An exported manifest, parsed, with its templates by name.
struct ExportedManifest {
    let text: String
    let document: JSONValue
    let warnings: [String]

    init(json: String, options: ArgoExportOptions = goldenOptions) throws {
        let export = try exportManifest(json: json, options: options)
        text = export.manifest.json
        document = try JSONParser.parse(Array(text.utf8)).plain
        warnings = export.warnings
        ArgoManifestCheck.check(text)
    }

    /// The template `name`.
    func template(_ name: String) throws -> JSONValue {
        guard
            case .array(let list)? = document.value(at: JSONPointer(tokens: ["spec", "templates"])),
            let found = list.first(where: {
                $0.value(at: JSONPointer(tokens: ["name"])) == .string(name)
            })
        else { throw PodSimulator.SimulationError("no template \(name)") }
        return found
    }

    /// The task `name` of the DAG template `dag`.
    func task(_ name: String, in dag: String = ArgoManifestBuilder.entrypoint) throws -> JSONValue {
        guard
            case .array(let tasks)? = try template(dag).value(
                at: JSONPointer(tokens: ["dag", "tasks"])),
            let found = tasks.first(where: {
                $0.value(at: JSONPointer(tokens: ["name"])) == .string(name)
            })
        else { throw PodSimulator.SimulationError("no task \(name) in \(dag)") }
        return found
    }

    /// A string field of a template or task.
    static func string(_ value: JSONValue, _ tokens: String...) -> String? {
        if case .string(let text)? = value.value(at: JSONPointer(tokens: tokens)) { return text }
        return nil
    }
}

/// Pods of exported manifests, run here as Argo would run them: the scripts around commands
/// and procflow, with values passed as Argo passes them.
@Suite("Argo export: pods")
struct ArgoPodTests {
    /// Text no shell, template engine or YAML parser should ever interpret.
    static let hostile = "$(touch pwned) `touch pwned` ' \" ; {{workflow.name}} {{=1}} \\n\n\n"

    @Test func wiredValuesReachTheCommandExactlyAsEnvironmentAndStdin() throws {
        let manifest = try ExportedManifest(
            json: workflow(
                #"""
                {"id": "source", "kind": "shell", "run": "true", "output": "text"},
                {"id": "use", "kind": "shell", "run": "printf '%s|' \"$VALUE\"; cat",
                 "inputs": {"VALUE": {"from": "source"}}, "input": {"from": "source"},
                 "output": "text"}
                """#))
        let pod = try PodSimulator()
        defer { pod.remove() }
        let run = try pod.run(
            try manifest.template("use"),
            parameters: ["env-VALUE": Self.hostile.encoded, "stdin": Self.hostile.encoded])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.outputs["output"]?.decoded == Self.hostile + "|" + Self.hostile)
        #expect(
            !FileManager.default.fileExists(
                atPath: pod.workspace.appendingPathComponent("pwned").path))
        // The value is nowhere in the manifest, and no tag is in the command.
        #expect(!manifest.text.contains("touch pwned"))
    }

    @Test func aTextOutputKeepsItsFinalNewlinesAndTheCommandsStatus() throws {
        let manifest = try ExportedManifest(
            json: workflow(
                #"{"id": "say", "kind": "shell", "run": "printf 'a\\n\\n'; exit 3", "output": "text"}"#
            ))
        let pod = try PodSimulator()
        defer { pod.remove() }
        let run = try pod.run(try manifest.template("say"))
        #expect(run.status == 3)
        #expect(run.outputs["output"]?.decoded == "a\n\n")
        #expect(run.stdout.hasPrefix("a\n\n"), "the output still reaches the log")
    }

    @Test func aCommandWithoutInputsOrOutputRunsAsIs() throws {
        let manifest = try ExportedManifest(
            json: workflow(#"{"id": "plain", "kind": "shell", "argv": ["echo", "hi"]}"#))
        let template = try manifest.template("plain")
        #expect(
            template.value(at: JSONPointer(tokens: ["container", "command"]))
                == .array([.string("echo"), .string("hi")]))
    }

    @Test func textArgoWouldReadReachesTheCommandThroughFiles() throws {
        let manifest = try ExportedManifest(
            json: workflow(
                #"""
                {"id": "braces", "kind": "shell", "argv": ["printf", "%s %s", "{{x}}"],
                 "env": {"B": "{{y}}"}, "output": "text"},
                {"id": "script", "kind": "shell", "run": "printf '%s' \"{{z}} $B\"", "env": {"B": "{{y}}"},
                 "output": "text"}
                """#))
        let pod = try PodSimulator()
        defer { pod.remove() }
        let braces = try pod.run(try manifest.template("braces"))
        #expect(braces.status == 0, "\(braces.stderr)")
        #expect(braces.outputs["output"]?.decoded == "{{x}} ")
        let script = try pod.run(try manifest.template("script"))
        #expect(script.outputs["output"]?.decoded == "{{z}} {{y}}")
    }

    @Test func thePreparePodSelectsWithTheJSONPointerAndGivesTextAsCommandsSeeIt() throws {
        let manifest = try ExportedManifest(
            json: workflow(
                #"""
                {"id": "meta", "kind": "shell", "run": "true", "output": "json"},
                {"id": "use", "kind": "shell", "run": "true",
                 "inputs": {"NAME": {"from": "meta", "select": "/a~1b/0"},
                            "OBJECT": {"from": "meta", "select": "/o"},
                            "WHOLE": {"from": "meta"}}}
                """#))
        let prepare = try manifest.template("use--prepare")
        let pod = try PodSimulator()
        defer { pod.remove() }
        let value = #"{"a/b": ["x y", 2], "o": {"k": [true, null]}, "n": 1.5}"#
        let run = try pod.run(prepare, parameters: ["value-0": value.encoded])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.outputs["env-NAME"]?.decoded == "x y")
        #expect(run.outputs["env-OBJECT"]?.decoded == #"{"k":[true,null]}"#)
        #expect(
            run.outputs["env-WHOLE"]?.decoded == #"{"a/b":["x y",2],"n":1.5,"o":{"k":[true,null]}}"#
        )
        let missing = try pod.run(prepare, parameters: ["value-0": #"{"o": 1}"#.encoded])
        #expect(missing.status != 0, "a pointer to nothing fails, as procflow fails the step")
    }

    @Test func conditionsOnOutputsCompareTypedJSON() throws {
        let manifest = try ExportedManifest(
            json: workflow(
                #"""
                {"id": "meta", "kind": "shell", "run": "true", "output": "json"},
                {"id": "draft", "kind": "shell", "run": "true",
                 "when": {"output": {"from": "meta", "select": "/draft"}, "equals": false}}
                """#))
        let task = try manifest.task("draft")
        #expect(
            ExportedManifest.string(task, "when")
                == "{{tasks.draft--prepare.outputs.parameters.run}} == true")
        let pod = try PodSimulator()
        defer { pod.remove() }
        let prepare = try manifest.template("draft--prepare")
        for (value, holds) in [
            (#"{"draft": false}"#, "true"), (#"{"draft": "false"}"#, "false"), ("{}", "false"),
        ] {
            let run = try pod.run(prepare, parameters: ["value-0": value.encoded])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.outputs["run"] == holds, "\(value)")
        }
    }

    @Test func conditionsOnFilesAndCommandsRunInTheWorkspace() throws {
        let manifest = try ExportedManifest(
            json: workflow(
                #"""
                {"id": "step", "kind": "shell", "run": "true",
                 "when": {"all": [{"exists": "marker"}, {"command": "test -f marker && test \"$V\" = 1"},
                                  {"not": {"env": "CI"}}]}}
                """#, extra: #""vars": {"V": "1"}, "#),
            options: ArgoExportOptions(image: "alpine", procflowImage: "p", environment: [:]))
        let prepare = try manifest.template("step--prepare")
        let pod = try PodSimulator()
        defer { pod.remove() }
        #expect(try pod.run(prepare).outputs["run"] == "false")
        try "".write(
            to: pod.workspace.appendingPathComponent("marker"), atomically: true, encoding: .utf8)
        let run = try pod.run(prepare)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.outputs["run"] == "true")
    }

    @Test func aBranchTakesTheFirstCaseEqualToItsValue() throws {
        let manifest = try ExportedManifest(
            json: workflow(
                #"""
                {"id": "pick", "kind": "shell", "run": "true", "output": "json"},
                {"id": "b", "kind": "branch", "on": {"from": "pick", "select": "/v"},
                 "cases": [{"equals": 1, "procedures": [{"id": "one", "kind": "shell", "run": "true"}]},
                           {"equals": "1", "procedures": [{"id": "text", "kind": "shell", "run": "true"}]},
                           {"equals": 1, "procedures": [{"id": "again", "kind": "shell", "run": "true"}]}],
                 "otherwise": [{"id": "other", "kind": "shell", "run": "true"}]}
                """#))
        let pod = try PodSimulator()
        defer { pod.remove() }
        let prepare = try manifest.template("b--prepare")
        for (value, chosen) in [
            (#"{"v": 1}"#, "0"), (#"{"v": "1"}"#, "1"), (#"{"v": [1]}"#, "otherwise"),
        ] {
            let run = try pod.run(prepare, parameters: ["value-0": value.encoded])
            #expect(run.outputs["case"] == chosen, "\(value): \(run.stderr)")
        }
        #expect(try pod.run(prepare, parameters: ["value-0": "{}".encoded]).status != 0)
        let chooser = try manifest.template("b")
        guard case .array(let tasks)? = chooser.value(at: JSONPointer(tokens: ["dag", "tasks"]))
        else {
            Issue.record("no tasks")
            return
        }
        #expect(
            tasks.compactMap { ExportedManifest.string($0, "when") } == [
                "'{{inputs.parameters.case}}' == '0'", "'{{inputs.parameters.case}}' == '1'",
                "'{{inputs.parameters.case}}' == '2'",
                "'{{inputs.parameters.case}}' == 'otherwise'",
            ])
    }

    @Test func aWiredRequestBodyIsTextWithProcflowsContentType() throws {
        let manifest = try ExportedManifest(
            json: workflow(
                #"""
                {"id": "data", "kind": "shell", "run": "true", "output": "json"},
                {"id": "send", "kind": "http", "method": "POST", "url": "http://x/", "input": {"from": "data"}}
                """#))
        let pod = try PodSimulator()
        defer { pod.remove() }
        let prepare = try manifest.template("send--prepare")
        let object = try pod.run(prepare, parameters: ["value-0": #"{"b": 1, "a": "x"}"#.encoded])
        #expect(object.outputs["body"] == #"{"a":"x","b":1}"#)
        #expect(object.outputs["content-type"] == "application/json")
        let string = try pod.run(prepare, parameters: ["value-0": #""line\n""#.encoded])
        #expect(string.outputs["body"] == "line\n")
        #expect(string.outputs["content-type"] == "application/x-www-form-urlencoded")
        let braces = try pod.run(prepare, parameters: ["value-0": #""{{workflow.name}}""#.encoded])
        #expect(braces.status != 0, "a body Argo would rewrite is refused")
        let http = try manifest.template("send")
        #expect(ExportedManifest.string(http, "http", "body") == "{{inputs.parameters.body}}")
    }

    @Test func aJSONOutputThatDoesNotParseFailsItsStep() throws {
        let manifest = try ExportedManifest(
            json: workflow(#"{"id": "j", "kind": "shell", "run": "true", "output": "json"}"#))
        let pod = try PodSimulator()
        defer { pod.remove() }
        let check = try manifest.template("j--output")
        #expect(try pod.run(check, parameters: ["value": "[1, 2]".encoded]).status == 0)
        #expect(try pod.run(check, parameters: ["value": "[1, 2".encoded]).status != 0)
    }

    @Test func fileStepsRunInProcflowWithTheirInputAndGiveTheirOutput() throws {
        let manifest = try ExportedManifest(
            json: workflow(
                #"""
                {"id": "meta", "kind": "shell", "run": "true", "output": "json"},
                {"id": "notes", "kind": "file", "op": "render", "text": "v{{v}} of {{name}}\n", "path": "out/n.txt",
                 "input": {"from": "meta"}},
                {"id": "part", "kind": "file", "op": "select", "pointer": "/list/1", "input": {"from": "meta"}},
                {"id": "use", "kind": "shell", "run": "true", "inputs": {"P": {"from": "part", "select": "/k"}}},
                {"id": "conf", "kind": "file", "op": "read", "path": "conf.json", "output": "json"}
                """#, extra: #""vars": {"name": "${x}"}, "#))
        let pod = try PodSimulator()
        defer { pod.remove() }
        let value = #"{"v": 2, "list": [0, {"k": "deep"}]}"#
        let notes = try pod.run(
            try manifest.template("notes"), parameters: ["input": value.encoded])
        #expect(notes.status == 0, "\(notes.stderr)")
        #expect(notes.outputs["output"]?.decoded == "v2 of ${x}\n")
        let written = try String(
            contentsOf: pod.workspace.appendingPathComponent("out/n.txt"), encoding: .utf8)
        #expect(written == "v2 of ${x}\n")
        // A select step passes its input on; the pointer travels in the manifest, and the step
        // fails if it points at nothing.
        let part = try pod.run(try manifest.template("part"), parameters: ["input": value.encoded])
        #expect(part.outputs["output"]?.decoded == value)
        let use = try pod.run(
            try manifest.template("use--prepare"), parameters: ["value-0": value.encoded])
        #expect(use.outputs["env-P"]?.decoded == "deep")
        #expect(
            try pod.run(try manifest.template("part"), parameters: ["input": "{}".encoded]).status
                != 0)
        try #"{"b": [1]}"#.write(
            to: pod.workspace.appendingPathComponent("conf.json"), atomically: true, encoding: .utf8
        )
        let conf = try pod.run(try manifest.template("conf"))
        #expect(conf.outputs["output"]?.decoded == #"{"b": [1]}"#)
    }
}

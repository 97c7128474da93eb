import Foundation
import Testing

@testable import Procflow

/// The options the golden files were written with.
let goldenOptions = ArgoExportOptions(
    image: "alpine:3.20", procflowImage: "procflow:test", environment: ["CI": "true"])

/// The manifest of the workflow file at `path`, exported with `options`.
func exportManifest(path: String, options: ArgoExportOptions = goldenOptions) throws -> ArgoExport {
    let workflow = try WorkflowLoader.load(path: path)
    return try ArgoExporter.export(
        workflow, options: options, source: try POSIXIO.readFile(path).get())
}

/// The manifest of the workflow `json`, exported with `options`.
func exportManifest(json: String, options: ArgoExportOptions = goldenOptions) throws -> ArgoExport {
    let workflow = try loadWorkflow(json).get()
    return try ArgoExporter.export(workflow, options: options, source: Array(json.utf8))
}

@Suite("Argo export")
struct ArgoExportTests {
    static let directory = fixtures.appendingPathComponent("argo")
    static let workflowPath = directory.appendingPathComponent("workflow.json").path

    @Test(arguments: ["json", "yaml"])
    func matchesTheGoldenFile(format: String) throws {
        let export = try exportManifest(path: Self.workflowPath)
        let text = format == "json" ? export.manifest.json : export.manifest.yaml
        let expected = try String(
            contentsOf: Self.directory.appendingPathComponent("expected.\(format)"), encoding: .utf8
        )
        #expect(text == expected)
        ArgoManifestCheck.check(export.manifest.json)
    }

    /// Each shipped workflow exports and passes the checks, but those with service steps
    /// (the showcase), which the export refuses for their services and nothing else.
    @Test func shippedWorkflowsPassTheChecks() throws {
        let directory = packageRoot.appendingPathComponent("workflows")
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where name.hasSuffix(".json") && name != "procflow.schema.json" {
            let path = directory.appendingPathComponent(name).path
            let workflow = try WorkflowLoader.load(path: path)
            guard workflow.nestedSteps.contains(where: { $0.step.service != nil }) else {
                let export = try exportManifest(path: path)
                #expect(ArgoManifestCheck.check(export.manifest.json).isEmpty, "\(name)")
                continue
            }
            do {
                _ = try exportManifest(path: path)
                Issue.record("\(name): a workflow with a service step was exported to Argo")
            } catch let error as ArgoExportError {
                let messages = error.diagnostics.map(\.message)
                #expect(
                    !messages.isEmpty
                        && messages.allSatisfy { $0.contains("a service is a process") },
                    "\(name): \(messages)")
            }
        }
    }
}

@Suite("Argo export: what Argo cannot express")
struct ArgoExportLimitTests {
    /// Workflows Argo cannot run as procflow would, and what the export says of each.
    static let cases: [ErrorCase] = [
        ErrorCase(
            name: "a dependency inside another step's group",
            json: workflow(
                #"""
                {"id": "g", "kind": "group", "procedures": [{"id": "inner", "kind": "shell", "run": "true"}]},
                {"id": "after", "kind": "shell", "run": "true", "dependsOn": ["inner"]}
                """#),
            expected: [
                #"test.json:2:63: error: /procedures/1/dependsOn/0: cannot export "after" to Argo: it depends on "inner", inside the group "g", and an Argo task can only depend on tasks of its own DAG or of DAGs around it: depend on "g" instead, or have it give that output with "outputFrom""#
            ]),
        ErrorCase(
            name: "a group's timeout",
            json: workflow(
                #"{"id": "g", "kind": "group", "timeout": 5, "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#
            ),
            expected: [
                #"test.json:1:17: error: /procedures/0/timeout: cannot export "g" to Argo: Argo's timeouts apply to pods and requests, not to a group's DAG: give the timeout to the steps inside"#
            ]),
        ErrorCase(
            name: "a linear backoff",
            json: workflow(
                #"{"id": "a", "kind": "shell", "run": "true", "retry": {"attempts": 3, "backoff": "linear"}}"#
            ),
            expected: [
                #"test.json:1:17: error: /procedures/0/retry: cannot export "a" to Argo: Argo's backoff multiplies the wait by a factor, so it cannot grow linearly: use "constant" or "exponential""#
            ]),
        ErrorCase(
            name: "a tag in a URL",
            json: workflow(#"{"id": "a", "kind": "http", "url": "http://x/{{y}}"}"#),
            expected: [
                #"test.json:1:17: error: /procedures/0/url: cannot export "a" to Argo: Argo would read the {{ in its url as a template tag, and it has no way to escape one"#
            ]),
    ]

    @Test(arguments: cases)
    func isReportedWithTheStepAndWhy(_ testCase: ErrorCase) throws {
        do {
            let export = try exportManifest(json: testCase.json)
            #expect(testCase.expected.isEmpty, "exported anyway")
            ArgoManifestCheck.check(export.manifest.json)
        } catch let error as ArgoExportError {
            #expect(error.diagnostics.map(\.description) == testCase.expected)
        }
    }

    @Test func aShellStepNeedsAnImage() throws {
        let json = workflow(#"{"id": "a", "kind": "shell", "run": "true"}"#)
        let options = ArgoExportOptions(image: nil, procflowImage: "p", environment: [:])
        #expect(throws: ArgoExportError.self) { try exportManifest(json: json, options: options) }
        let named = workflow(#"{"id": "a", "kind": "shell", "run": "true", "image": "alpine"}"#)
        let export = try exportManifest(json: named, options: options)
        #expect(export.manifest.json.contains(#""image": "alpine""#))
    }

    @Test func aToleratedGroupInsideAGroupIsWarnedAbout() throws {
        let export = try exportManifest(
            json: workflow(
                #"""
                {"id": "outer", "kind": "group", "procedures": [
                  {"id": "inner", "kind": "group", "continueOnError": true, "procedures": [
                    {"id": "a", "kind": "shell", "run": "false"}]}]}
                """#))
        #expect(
            export.warnings == [
                #""inner": a step that fails inside it without continueOnError also fails the group "outer" around it on Argo (procflow only fails the run): Argo has one outcome for a DAG"#
            ])
    }

    @Test func approximationsAreWarnings() throws {
        let export = try exportManifest(
            json: workflow(
                #"{"id": "a", "kind": "shell", "run": "true", "timeout": 1.5, "retry": {"attempts": 2, "jitter": 0.5}}"#
            ))
        #expect(
            export.warnings == [
                #""a": timeout 1.5 s rounded up to 2 s: Argo counts whole seconds"#,
                #""a": retry jitter dropped: Argo waits the full backoff"#,
            ])
    }
}

@Suite("Argo export: the command")
struct ArgoExportCommandTests {
    static let directory = fixtures.appendingPathComponent("argo")
    /// The environment the golden files' `env` conditions were decided in.
    static let environment = ["CI": "true", "TARGET": ""]

    @Test(arguments: ["json", "yaml"])
    func printsTheGoldenManifest(format: String) throws {
        let result = try runProcflow(
            [
                "export", "workflow.json", "--to", "argo", "--image", "alpine:3.20",
                "--procflow-image",
                "procflow:test",
            ] + (format == "yaml" ? ["--yaml"] : []),
            in: Self.directory, environment: Self.environment)
        #expect(result.status == 0)
        let expected = try String(
            contentsOf: Self.directory.appendingPathComponent("expected.\(format)"), encoding: .utf8
        )
        #expect(result.stdout == expected)
        #expect(
            result.stderr.withoutSnippets == """
                warning: "meta": timeout 2.5 s rounded up to 3 s: Argo counts whole seconds
                warning: "meta": retry jitter dropped: Argo waits the full backoff

                """)
    }

    @Test func anInvalidWorkflowGetsTheErrorsValidatePrints() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try workflow(#"{"id": "a", "kind": "shell", "run": "true", "dependsOn": ["b"]}"#)
            .write(
                to: directory.appendingPathComponent("w.json"), atomically: true, encoding: .utf8)
        let export = try runProcflow(
            ["export", "w.json", "--to", "argo", "--image", "x"], in: directory)
        let validate = try runProcflow(["validate", "w.json"], in: directory)
        #expect(export.status == 2)
        #expect(export.stdout == "")
        #expect(export.stderr == validate.stderr)
        #expect(export.stderr.contains(#"unknown procedure "b""#))
    }

    @Test func anUnexportableWorkflowNamesTheStep() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try workflow(#"{"id": "a", "kind": "shell", "run": "true"}"#)
            .write(
                to: directory.appendingPathComponent("w.json"), atomically: true, encoding: .utf8)
        let result = try runProcflow(["export", "w.json", "--to", "argo"], in: directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr.withoutSnippets == """
                w.json:1:17: error: /procedures/0: cannot export "a" to Argo: a shell step needs a container image: give --image IMAGE, or an "image" field to the step
                w.json: 1 error

                """)
    }

    @Test(arguments: [
        (["--image", "x"], "error: Missing '--to <engine>': the engine to export to (argo)"),
        (
            ["--to", "k8s"],
            "error: The value 'k8s' is invalid for '--to <engine>': expected one of argo"
        ),
    ])
    func theEngineIsRequired(arguments: [String], message: String) throws {
        let result = try runProcflow(["export", "workflow.json"] + arguments, in: Self.directory)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(message + "\n"))
    }

    @Test func procflowPodsUseTheProcflowImageOfThisVersionByDefault() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try workflow(#"{"id": "a", "kind": "file", "op": "read", "path": "x"}"#)
            .write(
                to: directory.appendingPathComponent("w.json"), atomically: true, encoding: .utf8)
        let result = try runProcflow(["export", "w.json", "--to", "argo"], in: directory)
        #expect(result.status == 0)
        #expect(result.stdout.contains(#""image": "procflow:\#(CommandLineTool.version)""#))
    }

    @Test func helpDescribesTheCommand() throws {
        let result = try runProcflow(["help", "export"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: procflow export [<file>] [--to <engine>]"))
        #expect(try runProcflow(["--help"]).stdout.contains("export"))
    }
}

@Suite("Argo export: the manifest checks themselves")
struct ArgoManifestCheckTests {
    static func manifest(tasks: String, extra: String = "") -> String {
        #"""
        {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {},
         "spec": {"entrypoint": "main", "templates": [
           {"name": "main", "dag": {"tasks": [\#(tasks),
             {"name": "procflow--end", "template": "noop", "depends": "a.Succeeded && b.Succeeded"}]}},
           {"name": "noop", "suspend": {}},
           {"name": "pod", "inputs": {"parameters": [{"name": "v"}]},
            "container": {"image": "x", "command": ["sh", "-c", "echo \#(extra)"]}}]}}
        """#
    }

    @Test func aSoundManifestPasses() {
        let text = Self.manifest(
            tasks: #"""
                {"name": "a", "template": "noop"},
                {"name": "b", "template": "pod", "depends": "a.Succeeded",
                 "arguments": {"parameters": [{"name": "v", "value": "{{tasks.a.status}}"}]}}
                """#)
        #expect(ArgoManifestCheck.problems(in: text) == [])
    }

    @Test(arguments: [
        (
            #"{"name": "a", "template": "noop"}, {"name": "b", "template": "pod", "arguments": {"parameters": [{"name": "v", "value": "{{tasks.a.status}}"}]}}"#,
            "", "main/b: reads task a, which it does not run after"
        ),
        (
            #"{"name": "a", "template": "noop"}, {"name": "b", "template": "pod", "depends": "a.Succeeded", "arguments": {"parameters": [{"name": "v", "value": "x"}]}}"#,
            "{{inputs.parameters.v}}", "pod: a tag in its command"
        ),
        (
            #"{"name": "a", "template": "noop"}, {"name": "b", "template": "pod", "depends": "a.Succeeded", "arguments": {"parameters": [{"name": "v", "value": "{{x"}]}}"#,
            "", #"main: a {{ that starts no tag in "{{x""#
        ),
        (
            #"{"name": "a", "template": "nothing"}, {"name": "b", "template": "pod", "depends": "c.Succeeded", "arguments": {"parameters": []}}"#,
            "", "main/b: depends on c, not a task of this DAG"
        ),
        (
            #"{"name": "A_1", "template": "noop"}, {"name": "a", "template": "noop"}, {"name": "b", "template": "pod", "depends": "a.Succeeded", "arguments": {"parameters": [{"name": "v", "value": ""}]}}"#,
            "", #"task name "A_1" is not valid in Argo"#
        ),
    ])
    func problemsAreFound(tasks: String, command: String, problem: String) {
        let found = ArgoManifestCheck.problems(in: Self.manifest(tasks: tasks, extra: command))
        #expect(found.contains(problem), "\(found)")
    }
}

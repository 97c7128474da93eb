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

    @Test func shippedWorkflowsPassTheChecks() throws {
        let directory = packageRoot.appendingPathComponent("workflows")
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where name.hasSuffix(".json") && name != "procflow.schema.json" {
            let export = try exportManifest(path: directory.appendingPathComponent(name).path)
            #expect(ArgoManifestCheck.check(export.manifest.json).isEmpty, "\(name)")
        }
    }
}

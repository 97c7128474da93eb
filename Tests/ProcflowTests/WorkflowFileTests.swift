import Foundation
import Testing

@testable import Procflow

/// The workflow files shipped in workflows/.
let shippedWorkflows: [String] = {
    let directory = packageRoot.appendingPathComponent("workflows")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".json") && $0 != "procflow.schema.json" }.sorted()
}()

@Suite("Shipped workflows")
struct WorkflowFileTests {

    @Test func thereAreWorkflowsToCheck() {
        #expect(shippedWorkflows.contains("showcase.json"))
        #expect(shippedWorkflows.contains("build.json"))
    }

    @Test(arguments: shippedWorkflows)
    func validates(name: String) throws {
        let path = packageRoot.appendingPathComponent("workflows/\(name)").path
        let result = Result { () throws(WorkflowErrors) in try WorkflowLoader.load(path: path) }
        if case .failure(let errors) = result {
            Issue.record("\(name) does not validate:\n\(errors)")
        }
    }
}

@Suite("README examples")
struct ReadmeTests {

    @Test func theTourWorkflowValidates() throws {
        let readme = try String(
            contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let tour = try #require(readme.range(of: "## A tour of the workflow format"))
        let start = try #require(
            readme.range(of: "```json\n", range: tour.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let json = String(readme[start.upperBound..<end.lowerBound])
        let result = Result { () throws(WorkflowErrors) in
            try WorkflowLoader.load(bytes: Array(json.utf8), file: "README.md", overrides: [])
        }
        if case .failure(let errors) = result {
            Issue.record("the README's tour does not validate:\n\(errors)")
        }
    }
}

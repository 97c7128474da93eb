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

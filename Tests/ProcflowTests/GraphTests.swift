import Foundation
import Testing

@testable import Procflow

@Suite("Graph output")
struct GraphTests {

    @Test(arguments: GraphFormat.allCases)
    func matchesTheGoldenFile(format: GraphFormat) throws {
        let directory = fixtures.appendingPathComponent("graph")
        let workflow = try WorkflowLoader.load(
            path: directory.appendingPathComponent("workflow.json").path)
        let expected = try String(
            contentsOf: directory.appendingPathComponent("expected.\(format.rawValue)"),
            encoding: .utf8)
        #expect(format.render(WorkflowGraph(workflow)) == expected)
    }

    @Test(arguments: GraphFormat.allCases)
    func theBinaryPrintsTheSameGraph(format: GraphFormat) throws {
        let directory = fixtures.appendingPathComponent("graph")
        let result = try runProcflow(
            ["graph", "workflow.json", "--format", format.rawValue], in: directory)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let expected = try String(
            contentsOf: directory.appendingPathComponent("expected.\(format.rawValue)"),
            encoding: .utf8)
        #expect(result.stdout == expected)
    }

    @Test func textIsTheDefaultFormat() throws {
        let directory = fixtures.appendingPathComponent("graph")
        let result = try runProcflow(["graph", "workflow.json"], in: directory)
        let expected = try String(
            contentsOf: directory.appendingPathComponent("expected.text"), encoding: .utf8)
        #expect(result.stdout == expected)
    }

    @Test func jsonEdgesAreTyped() throws {
        let workflow = try WorkflowLoader.load(
            path: fixtures.appendingPathComponent("graph/workflow.json").path)
        let text = GraphFormat.json.render(WorkflowGraph(workflow))
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let edges = parsed?["edges"] as? [[String: Any]] ?? []
        #expect(
            Set(edges.compactMap { $0["type"] as? String }) == ["dependency", "input", "condition"])
        #expect((parsed?["nodes"] as? [Any])?.count == 11)
    }

    @Test func outputIsDeterministic() throws {
        let path = fixtures.appendingPathComponent("graph/workflow.json").path
        for format in GraphFormat.allCases {
            let first = format.render(WorkflowGraph(try WorkflowLoader.load(path: path)))
            for _ in 0..<5 {
                #expect(format.render(WorkflowGraph(try WorkflowLoader.load(path: path))) == first)
            }
        }
    }
}

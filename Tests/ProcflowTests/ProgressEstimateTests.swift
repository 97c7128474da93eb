import Foundation
import Testing

@testable import Procflow

/// Durations as earlier runs would have kept them.
private struct KnownDurations: StepDurations {
    let durations: [String: TimeInterval]
    func expectedDuration(of id: String) -> TimeInterval? { durations[id] }
}

@Suite("The time left")
struct ProgressEstimateTests {

    private let graph: WorkflowGraph = {
        let workflow = try! loadWorkflow(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "true"},
              {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["a"]},
              {"id": "c", "kind": "shell", "run": "true", "dependsOn": ["b"]},
              {"id": "d", "kind": "shell", "run": "true"},
              {"id": "g", "kind": "group", "procedures": [{"id": "inner", "kind": "shell", "run": "true"}]},
              {"id": "last", "kind": "shell", "run": "true", "dependsOn": ["g"]}
            ]}
            """
        ).get()
        return WorkflowGraph(workflow)
    }()

    private let start = Date(timeIntervalSince1970: 1_000)

    @Test func unknownUntilAStepHasFinished() {
        var estimate = ProgressEstimate(graph: graph, concurrency: 2)
        estimate.started("a", at: start)
        #expect(estimate.remaining(at: start.addingTimeInterval(3)) == nil)
    }

    @Test func theLongestChainOfRemainingStepsOrTheWorkSpreadOverTheLimit() {
        var estimate = ProgressEstimate(graph: graph, concurrency: 2)
        estimate.started("a", at: start)
        estimate.finished("a", at: start.addingTimeInterval(10))
        estimate.started("b", at: start.addingTimeInterval(10))
        estimate.started("inner", at: start.addingTimeInterval(10))
        let now = start.addingTimeInterval(12)
        // Each step is expected to take 10 s (the mean so far): b has 8 s left, then c 10 s;
        // the chain inner → last is 8 + 10; d 10; the work, 46 s over two places, is 23 s.
        #expect(estimate.remaining(at: now) == 23)
        var wide = ProgressEstimate(graph: graph, concurrency: 8)
        wide.started("a", at: start)
        wide.finished("a", at: start.addingTimeInterval(10))
        wide.started("b", at: start.addingTimeInterval(10))
        // The chain inner → last, through the group: 10 + 10 s, longer than b → c (8 + 10 s)
        // and than the work over eight places.
        #expect(wide.remaining(at: now) == 20)
    }

    @Test func durationsOfEarlierRunsTakePrecedence() {
        let history = KnownDurations(durations: ["c": 1, "d": 1, "inner": 1, "last": 1])
        var estimate = ProgressEstimate(graph: graph, concurrency: 8, history: history)
        estimate.started("a", at: start)
        estimate.finished("a", at: start.addingTimeInterval(10))
        estimate.started("b", at: start.addingTimeInterval(10))
        #expect(estimate.remaining(at: start.addingTimeInterval(12)) == 9)
    }

    @Test func stepsThatEndWithoutRunningLeaveNothingToWaitFor() {
        var estimate = ProgressEstimate(graph: graph, concurrency: 1)
        estimate.started("a", at: start)
        estimate.finished("a", at: start.addingTimeInterval(4))
        for id in ["b", "c", "d", "inner", "last"] {
            estimate.finished(id, at: start.addingTimeInterval(4))
        }
        #expect(estimate.remaining(at: start.addingTimeInterval(5)) == 0)
    }
}

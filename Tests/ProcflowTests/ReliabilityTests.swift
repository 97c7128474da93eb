import Foundation
import Testing

@testable import Procflow

/// The corners where a run hung, reported a wrong result or signalled what it did not own.
@Suite("Reliability")
struct ReliabilityTests {

    @Test func theDependencyBlamedIsTheOneThatStoppedTheStep() throws {
        // `tolerated` fails with continueOnError and gives no data to `report`, so it does not
        // stop it; `source`, whose output `report` takes, does.
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "tolerated", "kind": "shell", "run": "exit 1", "continueOnError": true},
              {"id": "source", "kind": "shell", "run": "exit 2", "output": "text"},
              {"id": "report", "kind": "shell", "run": "true", "dependsOn": ["tolerated"],
               "inputs": {"VALUE": {"from": "source"}}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        #expect(reasons(events)["report"] == "dependency source failed")
    }
}

import Foundation
import Testing

@testable import Procflow

/// What a run does after Ctrl-C or SIGTERM: it says what it waits for, waits only while
/// something is alive, and still runs `always` steps.
@Suite("Interrupts")
struct InterruptTests {

    @Test func aLeftoverThatEndsAtTheFirstSignalDoesNotHoldTheRun() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "sleep 100 & echo hi"}, {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["a"]}]}"#
        )
        defer { fixture.remove() }
        let started = Date()
        let result = try fixture.run(["--grace-period", "60"])
        #expect(result.status == 0)
        #expect(Date().timeIntervalSince(started) < 30, "the run waited out the grace period")
    }

    @Test func afterCtrlCTheRunSaysWhatItWaitsForAndASecondOneKills() throws {
        // dash's `wait` is not interrupted by SIGINT: the command outlives the first signal.
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "bg", "kind": "shell", "run": "trap '' INT TERM; touch started; sleep 241 & wait"}]}"#
        )
        defer { fixture.remove() }
        let run = try RunningProcflow(fixture, arguments: ["--grace-period", "60"])
        #expect(eventually(timeout: 30) { fixture.exists("started") })
        run.signal(SIGINT)
        let notice =
            "procflow: interrupted by SIGINT (2); waiting up to 1 min 00 s for 1 command to exit; Ctrl-C again to kill them"
        #expect(eventually(timeout: 30) { run.output.contains(notice) }, "\(run.output)")
        #expect(run.process.isRunning)
        run.signal(SIGINT)
        _ = run.finish(timeout: 30)
        #expect(run.process.terminationStatus == 130)
    }

    static let lockWorkflow = """
        {"procedures": [
          {"id": "up", "kind": "shell", "run": "touch resource.lock"},
          {"id": "work", "kind": "shell", "run": ": > working; exec sleep 300", "dependsOn": ["up"]},
          {"id": "down", "kind": "shell", "run": "rm resource.lock; echo released > released.txt",
           "dependsOn": ["work"], "always": true}
        ]}
        """

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func alwaysStepsRunAfterAnInterrupt(signal: Int32, status: Int32) throws {
        let fixture = try WorkflowFixture(Self.lockWorkflow)
        defer { fixture.remove() }
        let run = try RunningProcflow(fixture, arguments: ["--events", "json"])
        #expect(eventually(timeout: 30) { fixture.exists("working") })
        run.signal(signal)
        _ = run.finish(timeout: 60)
        #expect(run.process.terminationStatus == status)
        #expect(!fixture.exists("resource.lock"))
        #expect(fixture.contents("released.txt") == "released\n")
        let events = run.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(statuses(events) == ["up": "succeeded", "work": "cancelled", "down": "succeeded"])
        let interrupted = events.first { $0["event"] as? String == "workflow.interrupted" }
        #expect(interrupted?["alwaysSteps"] as? Int == 1)
        #expect(interrupted?["commands"] as? Int == 1)
    }

    @Test func alwaysStepsHaveTheGracePeriodAndASecondCtrlCEndsThem() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "work", "kind": "shell", "run": ": > working; exec sleep 300"},
              {"id": "down", "kind": "shell", "run": ": > cleaning; exec sleep 300",
               "dependsOn": ["work"], "always": true}
            ]}
            """)
        defer { fixture.remove() }
        let run = try RunningProcflow(fixture, arguments: ["--grace-period", "60"])
        #expect(eventually(timeout: 30) { fixture.exists("working") })
        run.signal(SIGINT)
        #expect(eventually(timeout: 30) { fixture.exists("cleaning") })
        #expect(run.process.isRunning)
        run.signal(SIGINT)
        _ = run.finish(timeout: 30)
        #expect(run.process.terminationStatus == 130)
        #expect(run.output.contains("down ✗ cancelled"), "\(run.output)")

        // Without a second Ctrl-C, the grace period ends them.
        try fixture.delete("working")
        try fixture.delete("cleaning")
        let bounded = try RunningProcflow(fixture, arguments: ["--grace-period", "1"])
        #expect(eventually(timeout: 30) { fixture.exists("working") })
        bounded.signal(SIGINT)
        _ = bounded.finish(timeout: 30)
        #expect(bounded.process.terminationStatus == 130)
        #expect(fixture.exists("cleaning"))
    }
}

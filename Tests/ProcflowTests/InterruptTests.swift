import Foundation
import Testing

@testable import Procflow

/// A `procflow run` in the background whose output goes to a file as it comes, so that a
/// test can wait for a line before it signals.
final class LoggedProcflow {
    let process = Process()
    let log: URL

    init(_ fixture: WorkflowFixture, arguments: [String] = []) throws {
        log = fixture.directory.appendingPathComponent("procflow.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.executableURL = procflowBinary
        process.arguments = ["run", fixture.file] + arguments
        process.currentDirectoryURL = fixture.directory
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try handle.close()
    }

    /// What the run has printed so far.
    var output: String {
        (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the run to end, at most `timeout` seconds; its exit status.
    func finish(timeout: TimeInterval) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            Issue.record("procflow did not exit within \(timeout) s")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return process.terminationStatus
    }
}

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
            #"{"procedures": [{"id": "bg", "kind": "shell", "run": "touch started; trap '' INT TERM; sleep 241 & wait"}]}"#
        )
        defer { fixture.remove() }
        let run = try LoggedProcflow(fixture, arguments: ["--grace-period", "60"])
        #expect(eventually(timeout: 30) { fixture.exists("started") })
        run.signal(SIGINT)
        let notice =
            "procflow: interrupted by SIGINT (2); waiting up to 1 min 00 s for 1 command to exit; Ctrl-C again to kill them"
        #expect(eventually(timeout: 30) { run.output.contains(notice) }, "\(run.output)")
        #expect(run.process.isRunning)
        run.signal(SIGINT)
        #expect(run.finish(timeout: 30) == 130)
    }

    static let lockWorkflow = """
        {"procedures": [
          {"id": "up", "kind": "shell", "run": "touch resource.lock"},
          {"id": "work", "kind": "shell", "run": "touch working; sleep 300", "dependsOn": ["up"]},
          {"id": "down", "kind": "shell", "run": "rm resource.lock; echo released > released.txt",
           "dependsOn": ["work"], "always": true}
        ]}
        """

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func alwaysStepsRunAfterAnInterrupt(signal: Int32, status: Int32) throws {
        let fixture = try WorkflowFixture(Self.lockWorkflow)
        defer { fixture.remove() }
        let run = try LoggedProcflow(fixture, arguments: ["--events", "json"])
        #expect(eventually(timeout: 30) { fixture.exists("working") })
        run.signal(signal)
        #expect(run.finish(timeout: 60) == status)
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
              {"id": "work", "kind": "shell", "run": "touch working; sleep 300"},
              {"id": "down", "kind": "shell", "run": "touch cleaning; sleep 300",
               "dependsOn": ["work"], "always": true}
            ]}
            """)
        defer { fixture.remove() }
        let run = try LoggedProcflow(fixture, arguments: ["--grace-period", "60"])
        #expect(eventually(timeout: 30) { fixture.exists("working") })
        run.signal(SIGINT)
        #expect(eventually(timeout: 30) { fixture.exists("cleaning") })
        #expect(run.process.isRunning)
        run.signal(SIGINT)
        #expect(run.finish(timeout: 30) == 130)
        #expect(run.output.contains("down ✗ cancelled"), "\(run.output)")

        // Without a second Ctrl-C, the grace period ends them.
        try fixture.delete("working")
        try fixture.delete("cleaning")
        let bounded = try LoggedProcflow(fixture, arguments: ["--grace-period", "1"])
        #expect(eventually(timeout: 30) { fixture.exists("working") })
        bounded.signal(SIGINT)
        #expect(bounded.finish(timeout: 30) == 130)
        #expect(fixture.exists("cleaning"))
    }
}

import Foundation
import Testing

@testable import Procflow

/// The process groups whose leaders wrote their pid into `file`s in `directory`.
func recordedGroups(in directory: URL, count: Int) -> [pid_t] {
    (0..<count).compactMap { index in
        let text = try? String(
            contentsOf: directory.appendingPathComponent("pid\(index)"), encoding: .utf8)
        return text.flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}

@Suite("Signals")
struct SignalTests {

    /// Steps that each start a grandchild and wait: `sh -c 'sleep 300 & sleep 300'`.
    static let workflow = """
        {"procedures": [
          {"id": "a", "kind": "shell", "run": "echo $$ > pid0; sh -c 'sleep 300 & sleep 300'"},
          {"id": "b", "kind": "shell", "run": "echo $$ > pid1; sh -c 'sleep 300 & sleep 300'"}
        ]}
        """

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func aSignalEndsTheRunAndLeavesNoProcessBehind(signal: Int32, status: Int32) throws {
        let fixture = try WorkflowFixture(Self.workflow)
        defer { fixture.remove() }
        let running = try RunningProcflow(fixture)
        // Each group: the step's shell, its sh and the two sleeps.
        func started(_ group: pid_t) -> Bool {
            ProcessTable.read().entries.filter { $0.group == group && !$0.isZombie }.count >= 4
        }
        #expect(
            eventually(timeout: 30) {
                let groups = recordedGroups(in: fixture.directory, count: 2)
                return groups.count == 2 && groups.allSatisfy(started)
            })
        let groups = recordedGroups(in: fixture.directory, count: 2)
        #expect(groups.allSatisfy { ProcessGroups.isAlive($0) })
        kill(running.process.processIdentifier, signal)
        let output = running.finish(timeout: 30)
        #expect(running.process.terminationStatus == status)
        #expect(output.contains("cancelled: interrupted by \(SignalName.describe(signal))"))
        #expect(output.contains("interrupted by \(SignalName.describe(signal)) in "))
        for group in groups {
            #expect(
                eventually(timeout: 10) { !ProcessGroups.isAlive(group) },
                "process group \(group) outlived procflow")
        }
    }

    @Test func aSecondInterruptKillsAtOnce() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "stubborn", "kind": "shell", "run": "echo $$ > pid0; trap '' INT TERM; sleep 300 & wait; wait"}
            ]}
            """)
        defer { fixture.remove() }
        let running = try RunningProcflow(fixture, arguments: ["--grace-period", "60"])
        // The shell has set its trap and started its sleep.
        #expect(
            eventually(timeout: 30) {
                recordedGroups(in: fixture.directory, count: 1).first.map { group in
                    ProcessTable.read().entries.filter { $0.group == group }.count >= 2
                } == true
            })
        let group = recordedGroups(in: fixture.directory, count: 1)[0]
        running.signal(SIGINT)
        #expect(eventually(timeout: 30) { running.output.contains("Ctrl-C again to kill them") })
        #expect(running.process.isRunning, "the first Ctrl-C waits for the grace period")
        let second = Date()
        running.signal(SIGINT)
        _ = running.finish(timeout: 30)
        #expect(running.process.terminationStatus == 130)
        #expect(Date().timeIntervalSince(second) < 10)
        #expect(eventually(timeout: 10) { !ProcessGroups.isAlive(group) })
    }
}

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
              {"id": "stubborn", "kind": "shell", "run": "trap '' INT TERM; echo $$ > pid0; sleep 300 & wait; wait"}
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

/// A signal forwarded to every command while one is being spawned reaches that one too, once
/// it is registered: Ctrl-C just as a step starts stops it as it stops the others.
@Suite("Signals and commands being spawned")
struct SpawningSignalTests {
    /// A `sleep 30` leading a process group of its own.
    static func spawnSleep() throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own group, no signal blocked or ignored (the test process may block some).
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var pid: pid_t = 0
        let words: [String] = ["/bin/sleep", "30"]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { word in strdup(word) } + [nil]
        defer { for argument in arguments { free(argument) } }
        let status = posix_spawn(&pid, "/bin/sleep", nil, &attributes, arguments, environ)
        try #require(status == 0)
        return pid
    }

    /// How `pid` ended: the signal that killed it, or 0.
    static func endingSignal(of pid: pid_t) -> Int32 {
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status & 0x7f
    }

    @Test func aSignalSentDuringASpawnReachesTheCommandWhenItIsRegistered() throws {
        let groups = ProcessGroups()
        let seen = groups.spawning()
        #expect(groups.commandCount == 1)
        groups.signalAll(SIGTERM)
        let pid = try Self.spawnSleep()
        groups.register(pid, spawnedAfter: seen)
        #expect(Self.endingSignal(of: pid) == SIGTERM)
        groups.unregister(pid)

        // Spawned after the signal: left alone.
        let later = groups.spawning()
        let other = try Self.spawnSleep()
        groups.register(other, spawnedAfter: later)
        #expect(kill(other, 0) == 0)
        kill(-other, SIGKILL)
        #expect(Self.endingSignal(of: other) == SIGKILL)
        #expect(groups.commandCount == 1)
    }
}

import Foundation
import ProcedureKit
import Testing

@testable import Procflow

/// Whether the process `pid` is alive (a zombie is not).
func isRunning(_ pid: pid_t) -> Bool {
    ProcessTable.entry(pid).map { !$0.isZombie } ?? false
}

/// The pid a command wrote into `name` in `directory`.
func recordedPid(_ name: String, in directory: URL) -> pid_t? {
    (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
        .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
}

/// The events of an in-process run, kept for the test to read.
final class CollectingReporter: Reporter, Sendable {
    private let events = Locked([RunEvent]())

    func report(_ event: RunEvent) {
        events.withLock { $0.append(event) }
    }

    /// Every event reported so far.
    var reported: [RunEvent] {
        events.withLock { $0 }
    }

    /// Whether step `id` has started.
    func started(_ id: String) -> Bool {
        events.withLock { events in
            events.contains {
                if case .stepStarted = $0.kind { return $0.step == id }
                return false
            }
        }
    }
}

/// The corners where a run hung, reported a wrong result or signalled what it did not own.
@Suite("Reliability")
struct ReliabilityTests {

    @Test func aRunStartedOnAProcedureThreadEnds() throws {
        // A run's first worker runs on the thread that runs it, which then waits for the
        // run's end. Started on a thread of the procedure pool (which may keep a job for its
        // own next one: a command's watcher), the run must still end.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("flow.json").path
        try Data(
            workflow(
                #"{"id": "a", "kind": "shell", "run": "true"}"#
            ).utf8
        ).write(to: URL(fileURLWithPath: path))
        let loaded = try WorkflowLoader.load(path: path)
        for jobserver in [true, false] {
            var options = WorkflowRunner.Options()
            options.jobserver = jobserver
            let result = Locked<RunSummary.Result?>(nil)
            let ended = DispatchSemaphore(value: 0)
            WorkerThreads.shared.run { [options] in
                let summary = WorkflowRunner(workflow: loaded, options: options, reporters: [])
                    .run()
                result.withLock { $0 = summary.result }
                ended.signal()
            }
            #expect(ended.wait(timeout: .now() + 30) == .success, "the run never ended")
            #expect(result.withLock { $0 } == .succeeded)
        }
    }

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

    // MARK: - Steps inside groups that do not run

    @Test func aStepAfterAStepInAGroupSkippedByItsConditionRunsUnlessItTakesItsData() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "g", "kind": "group", "when": {"env": "PF_NOT_SET"}, "procedures": [
                {"id": "leaf", "kind": "shell", "run": "echo data", "output": "text"}]},
              {"id": "after", "kind": "shell", "run": "true", "dependsOn": ["leaf"]},
              {"id": "reader", "kind": "shell", "run": "true", "inputs": {"V": {"from": "leaf"}}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0)
        #expect(
            statuses(events) == [
                "g": "skipped", "leaf": "skipped", "after": "succeeded", "reader": "skipped",
            ])
        #expect(
            reasons(events)["leaf"]
                == "its group g was skipped: its condition is false: env PF_NOT_SET is not set")
        #expect(reasons(events)["reader"] == "dependency leaf was skipped")
    }

    @Test(arguments: [[], ["--fail-fast"]])
    func aStepAfterAStepInAGroupThatDidNotRunIsSkippedAndAlwaysStepsRun(arguments: [String])
        throws
    {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "x", "kind": "shell", "run": "false"},
              {"id": "g", "kind": "group", "dependsOn": ["x"], "procedures": [
                {"id": "inner", "kind": "group", "procedures": [
                  {"id": "leaf", "kind": "shell", "run": "true"}]}]},
              {"id": "after", "kind": "shell", "run": "true", "dependsOn": ["leaf"]},
              {"id": "cleanup", "kind": "shell", "run": "echo cleaned > cleaned", "dependsOn": ["leaf"], "always": true}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events(arguments)
        #expect(result.status == 1)
        // --fail-fast cancels what has not run; without it, what cannot run is skipped.
        let stopped = arguments.isEmpty ? "skipped" : "cancelled"
        #expect(statuses(events)["leaf"] == stopped)
        #expect(statuses(events)["after"] == stopped)
        #expect(statuses(events)["cleanup"] == "succeeded")
        #expect(fixture.contents("cleaned") == "cleaned\n")
        if arguments.isEmpty {
            #expect(
                reasons(events)["leaf"]
                    == "its group inner was skipped: its group g was skipped: dependency x failed")
            #expect(reasons(events)["after"] == "dependency leaf was skipped")
        }
    }

    // MARK: - Exit statuses

    @Test func failuresAreFailuresEvenWhenTheParentIgnoresSIGCHLD() throws {
        // An ignored SIGCHLD survives exec; with it the kernel reaps children itself.
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "fails", "kind": "shell", "run": "false"},
              {"id": "exit3", "kind": "shell", "run": "echo about to fail; exit 3"},
              {"id": "killed", "kind": "shell", "run": "kill -9 $$"},
              {"id": "slow", "kind": "shell", "run": "sleep 0.2; exit 4"},
              {"id": "fine", "kind": "shell", "run": "true"}
            ]}
            """)
        defer { fixture.remove() }
        let result = try runProcflow(
            [
                "-c",
                "import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])",
                procflowBinary.path, "run", fixture.file, "--events", "json",
            ], in: fixture.directory, executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(result.status == 1)
        let events = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(
            statuses(events) == [
                "fails": "failed", "exit3": "failed", "killed": "failed", "slow": "failed",
                "fine": "succeeded",
            ])
        #expect(reasons(events)["exit3"] == "exited with status 3")
        #expect(reasons(events)["killed"] == "killed by SIGKILL (9)")
    }

    @Test func anExitStatusThatCannotBeReadIsAFailure() {
        let outcome = CommandOutcome(
            termination: .unknown("waitpid failed: No child processes"), captured: [],
            captureExceeded: false, stderrTail: [])
        let result = ShellProcedure.result(of: outcome, output: .text, captureLimit: 1 << 20)
        guard case .failure(let error as StepError) = result else {
            Issue.record("an unknown exit status succeeded")
            return
        }
        #expect(error.code == .exitStatusUnknown)
        #expect(
            error.message == "its exit status could not be read: waitpid failed: No child processes"
        )
    }

    @Test(arguments: [
        (Int32(0), CommandOutcome.Termination.exited(0)), (3 << 8, .exited(3)), (9, .signaled(9)),
        (0x137F, .unknown("it was stopped, not ended (wait status 4991)")),
    ])
    func waitStatusesAreReadAsTheyAre(status: Int32, termination: CommandOutcome.Termination) {
        #expect(ProcessWatch.termination(fromWaitStatus: status) == termination)
    }

    // MARK: - Text outputs

    @Test func textOutputsOfEveryKindKeepTheirTrailingNewlines() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "made", "kind": "file", "op": "write", "path": "in.txt", "content": "line\\n\\n"},
              {"id": "read", "kind": "file", "op": "read", "path": "in.txt", "dependsOn": ["made"]},
              {"id": "echo", "kind": "shell", "run": "printf 'line\\\\n\\\\n'", "output": "text"},
              {"id": "from-read", "kind": "file", "op": "write", "path": "read.txt", "input": {"from": "read"}},
              {"id": "from-echo", "kind": "file", "op": "write", "path": "echo.txt", "input": {"from": "echo"}},
              {"id": "compare", "kind": "shell", "run": "true", "inputs": {"A": {"from": "read"}},
               "when": {"output": {"from": "echo"}, "equals": "line\\n\\n"}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.contents("read.txt") == "line\n\n")
        #expect(fixture.contents("echo.txt") == "line\n\n")
        #expect(statuses(events)["compare"] == "succeeded")
    }

    @Test func aValueTooBigForAnEnvironmentVariableIsNamed() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "big", "kind": "shell", "run": "head -c 200000 /dev/zero | tr '\\\\0' a", "output": "text"},
              {"id": "use", "kind": "shell", "run": "true", "inputs": {"BLOB": {"from": "big"}}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        #expect(
            reasons(events)["use"]
                == "cannot run /bin/sh: the environment variable BLOB holds 195 KiB, more than the 128 KiB the system allows one; give large values on stdin (\"input\") instead"
        )
    }

    // MARK: - Condition commands

    @Test func aConditionCommandIsBoundedByTheStepTimeout() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "guarded", "kind": "shell", "run": "echo ran > ran", "timeout": 0.5,
               "when": {"command": "echo $$ > condition.pid; sleep 1000.4242 & sleep 1000.4243"}}
            ]}
            """)
        defer { fixture.remove() }
        let started = Date()
        let (result, events) = try fixture.events(["--grace-period", "0.5"])
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(result.status == 1)
        #expect(statuses(events)["guarded"] == "failed")
        #expect(
            reasons(events)["guarded"] == "its condition failed: its command timed out after 500 ms"
        )
        #expect(fixture.contents("ran") == nil)
        let group = try #require(recordedPid("condition.pid", in: fixture.directory))
        #expect(!ProcessGroups.isAlive(group))
    }

    @Test func aConditionCommandGetsTheForwardedSignalAndTheGracePeriod() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "guarded", "kind": "shell", "run": "true",
               "when": {"command": "trap 'echo INT > got; exit 1' INT; echo $$ > pid0; while :; do sleep 0.05; done"}}
            ]}
            """)
        defer { fixture.remove() }
        let running = try RunningProcflow(fixture, arguments: ["--grace-period", "30"])
        #expect(
            eventually(timeout: 30) { recordedGroups(in: fixture.directory, count: 1).count == 1 })
        let group = recordedGroups(in: fixture.directory, count: 1)[0]
        kill(running.process.processIdentifier, SIGINT)
        let started = Date()
        _ = running.finish(timeout: 30)
        // The trap ran (SIGINT, not SIGKILL), and ended it long before the grace period.
        #expect(fixture.contents("got") == "INT\n")
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(running.process.terminationStatus == 130)
        #expect(eventually(timeout: 10) { !ProcessGroups.isAlive(group) })
    }

    @Test func aStubbornConditionCommandIsKilledAfterTheGivenGracePeriod() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "guarded", "kind": "shell", "run": "true", "timeout": 0.3,
               "when": {"command": "trap '' TERM; sleep 60 & while :; do sleep 0.05; done"}}
            ]}
            """)
        defer { fixture.remove() }
        let started = Date()
        let result = try fixture.run(["--grace-period", "0.5"])
        #expect(result.status == 1)
        // The default grace period is 5 s: ending sooner shows --grace-period was used.
        #expect(Date().timeIntervalSince(started) < 4)
    }

    @Test func allAndAnyStopAtThePartThatDecides() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "all", "kind": "shell", "run": "true",
               "when": {"all": [{"command": "false"}, {"command": "touch all-ran-on"}]}},
              {"id": "any", "kind": "shell", "run": "true",
               "when": {"any": [{"command": "true"}, {"command": "touch any-ran-on"}]}},
              {"id": "all-true", "kind": "shell", "run": "true",
               "when": {"all": [{"command": "true"}, {"command": "touch all-true-ran-on"}]}}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0)
        #expect(
            statuses(events) == ["all": "skipped", "any": "succeeded", "all-true": "succeeded"])
        #expect(fixture.contents("all-ran-on") == nil)
        #expect(fixture.contents("any-ran-on") == nil)
        #expect(fixture.contents("all-true-ran-on") == "")
    }

    // MARK: - Concurrency

    @Test func maxConcurrentLimitsTheWholeRunAndGroupsLimitFurther() throws {
        let step = #"{"id": "%@", "kind": "shell", "run": "echo s >> %@; sleep 0.3; echo e >> %@"}"#
        func group(_ id: String, limit: Int?, log: String) -> String {
            let children = (0..<3).map {
                String(format: step, "\(id)-\($0)", log, log) as String
            }
            let concurrency = limit.map { #", "maxConcurrency": \#($0)"# } ?? ""
            return
                #"{"id": "\#(id)", "kind": "group"\#(concurrency), "procedures": [\#(children.joined(separator: ","))]}"#
        }
        let fixture = try WorkflowFixture(
            workflow(
                [
                    group("a", limit: nil, log: "all"), group("b", limit: nil, log: "all"),
                    group("c", limit: nil, log: "all"),
                ].joined(separator: ",")))
        defer { fixture.remove() }
        let result = try fixture.run(["--max-concurrent", "2"])
        #expect(result.status == 0)
        #expect(highestConcurrency(fixture.contents("all")) == 2)

        let limited = try WorkflowFixture(
            workflow(
                [group("one", limit: 1, log: "one"), group("free", limit: nil, log: "free")]
                    .joined(separator: ",")))
        defer { limited.remove() }
        #expect(try limited.run(["--max-concurrent", "4"]).status == 0)
        #expect(highestConcurrency(limited.contents("one")) == 1)
        #expect(highestConcurrency(limited.contents("free")) <= 3)
    }

    // MARK: - Processes procflow owns

    @Test func processesThatLeaveTheirGroupDoNotOutliveTheRun() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "daemon", "kind": "shell", "run": "setsid sleep 300 & echo $! > escaped.pid"},
              {"id": "stubborn", "kind": "shell",
               "run": "setsid sh -c 'trap \\"\\" TERM; echo $$ > stubborn.pid; exec sleep 300' &"},
              {"id": "later", "kind": "shell", "run": "sleep 0.3", "dependsOn": ["daemon", "stubborn"]}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--grace-period", "1"])
        #expect(result.status == 0, "\(result.stdout)")
        let escaped = try #require(recordedPid("escaped.pid", in: fixture.directory))
        let stubborn = try #require(recordedPid("stubborn.pid", in: fixture.directory))
        #expect(
            eventually(timeout: 10) { !isRunning(escaped) }, "the escaped sleep outlived procflow")
        #expect(eventually(timeout: 10) { !isRunning(stubborn) }, "the stubborn one outlived it")
    }

    @Test func aRunLeavesTheCommandsOfOtherRunsAndProceduresAlone() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func load(_ name: String, _ procedures: String) throws -> Workflow {
            let path = directory.appendingPathComponent(name).path
            try Data(workflow(procedures).utf8).write(to: URL(fileURLWithPath: path))
            return try WorkflowLoader.load(path: path)
        }
        let long = try load(
            "long.json",
            #"{"id": "long", "kind": "shell", "run": "echo $$ > long.pid; exec sleep 60"}"#)
        let short = try load(
            "short.json", #"{"id": "short", "kind": "shell", "run": "sleep 0.1 & true"}"#)
        let reporter = CollectingReporter()
        let longRun = WorkflowRunner(
            workflow: long, options: .init(gracePeriod: 1), reporters: [reporter])
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = longRun.run()
            finished.signal()
        }
        // A procedure of no run, on the shared registry.
        let standalone = ShellProcedure(.script("exec sleep 60"))
        let queue = ProcedureQueue()
        queue.addOperation(standalone)
        #expect(eventually(timeout: 30) { recordedPid("long.pid", in: directory) != nil })
        #expect(eventually(timeout: 30) { standalone.processGroup != nil })
        let summary = WorkflowRunner(
            workflow: short, options: .init(gracePeriod: 1), reporters: []
        ).run()
        #expect(summary.result == .succeeded)
        let longGroup = try #require(recordedPid("long.pid", in: directory))
        #expect(ProcessGroups.isAlive(longGroup), "the other run's command was killed")
        #expect(ProcessGroups.isAlive(standalone.processGroup ?? 0), "the procedure's was killed")
        longRun.interrupt(signal: SIGTERM)
        standalone.cancel()
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(eventually(timeout: 30) { standalone.isFinished })
    }

    @Test func aGroupIsNotSignalledAfterItIsGoneEvenWhenItsNumberIsReused() throws {
        // The victim times out; its group's SIGKILL is due after the grace period. The test
        // then cycles the pid space so that a later step gets the victim's pid: that step must
        // not be killed when the victim's timer fires.
        var reused = false
        for attempt in 0..<5 where !reused {
            reused = try pidReuseAttempt(attempt)
        }
        #expect(reused, "no attempt gave a later step the victim's pid")
    }

    /// One attempt; true if a step got the victim's pid (and then it was not killed).
    private func pidReuseAttempt(_ number: Int) throws -> Bool {
        var procedures = [
            #"{"id": "victim", "kind": "shell", "run": "echo $$ > victim.pid; exec sleep 100", "timeout": 0.3}"#,
            // Waits for the test without starting a process: `read` from a FIFO is a builtin.
            #"{"id": "gate", "kind": "shell", "run": "read line < go"}"#,
        ]
        for index in 0..<40 {
            procedures.append(
                #"{"id": "catch\#(index)", "kind": "shell", "dependsOn": ["\#(index == 0 ? "gate" : "catch\(index - 1)")"], "run": "read P < victim.pid; echo $$; if [ $$ -eq $P ]; then exec sleep 6; fi"}"#
            )
        }
        let fixture = try WorkflowFixture(workflow(procedures.joined(separator: ",\n")))
        defer { fixture.remove() }
        #expect(mkfifo(fixture.directory.appendingPathComponent("go").path, 0o600) == 0)
        let running = try RunningProcflow(
            fixture, arguments: ["--grace-period", "3", "--events", "json"])
        guard eventually(timeout: 30, { recordedPid("victim.pid", in: fixture.directory) != nil }),
            let victim = recordedPid("victim.pid", in: fixture.directory),
            eventually(timeout: 30, { !isRunning(victim) })
        else {
            Issue.record("attempt \(number): the victim did not start and time out")
            return false
        }
        burnPids(until: victim)
        let gate = try FileHandle(forWritingTo: fixture.directory.appendingPathComponent("go"))
        gate.write(Data("go\n".utf8))
        try gate.close()
        let output = running.finish(timeout: 60)
        let events = output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        guard
            let line = events.first(where: {
                $0["event"] as? String == "step.output" && $0["line"] as? String == "\(victim)"
            }), let step = line["step"] as? String
        else { return false }
        #expect(statuses(events)[step] == "succeeded", "\(step) had the victim's pid: \(output)")
        return true
    }
}

/// Creates and joins threads (whose ids come from the pid space) until the last id handed out
/// is just below `target` (but for numbers in use), after wrapping around, so that the next
/// processes get `target`.
/// Gives up after two laps of the pid space.
private func burnPids(until target: pid_t) {
    func read(_ file: String) -> Int? {
        (try? String(contentsOfFile: file, encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
    let maximum = read("/proc/sys/kernel/pid_max") ?? 32768
    var previous = 0
    var wrapped = false
    for _ in 0..<(2 * maximum) {
        var thread = pthread_t()
        let body: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { _ in
            nil
        }
        guard pthread_create(&thread, nil, body, nil) == 0 else { return }
        pthread_join(thread, nil)
        guard let last = read("/proc/sys/kernel/ns_last_pid") else { return }
        if last < previous { wrapped = true }
        previous = last
        // Done when every number between the last one and the target is taken (a thread's id
        // counts: /proc shows it too), so that the next process gets the target.
        if wrapped, last < Int(target), Int(target) - last < 64,
            (last + 1..<Int(target)).allSatisfy({ access("/proc/\($0)", F_OK) == 0 })
        {
            return
        }
    }
}

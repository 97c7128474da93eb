import CProcflow
import Foundation
import ProcedureKit
import Testing

@testable import Procflow

/// One `-j` for the whole tree: the run's GNU make jobserver, its tokens shared by steps and
/// the jobs of the make and ninja they run, and the ways out of it.
@Suite("Jobserver")
struct JobserverTests {
    // MARK: - The pool

    /// A pool of `slots` tokens in the test's temporary directory.
    private func pool(_ slots: Int) throws -> Jobserver {
        try Jobserver(slots: slots, temporaryDirectory: NSTemporaryDirectory())
    }

    /// Tokens waiting in the FIFO.
    private func inFIFO(_ jobserver: Jobserver) -> Int32 {
        procflow_bytes_pending(jobserver.own)
    }

    /// The tokens `count` takes if they are free now, as a step starting would; `nil` if it
    /// waits (and goes on waiting).
    private func takeNow(_ jobserver: Jobserver, _ count: Int = 1, handsOver: Bool = true)
        -> Jobserver.Tokens?
    {
        let granted = Locked<Jobserver.Tokens?>(nil)
        _ = jobserver.acquire(count, handsOver: handsOver) { tokens in
            granted.withLock { $0 = tokens }
        }
        return granted.withLock { $0 }
    }

    /// What a client does with its descriptors: takes a token (waiting for one) or puts one
    /// back.
    private func clientTakes(_ jobserver: Jobserver) {
        var byte: UInt8 = 0
        #expect(read(jobserver.clientEnds.read, &byte, 1) == 1)
    }

    private func clientPutsBack(_ jobserver: Jobserver) {
        var byte = UInt8(ascii: "+")
        #expect(write(jobserver.clientEnds.write, &byte, 1) == 1)
    }

    /// Closed while its watcher waits on the FIFO, a pool leaves its descriptors to the
    /// watcher: closed under it, their numbers could be another thread's by the time the
    /// watcher, woken, read from them (or a cancelled step woke it through them).
    @Test func aPoolClosedWhileItsWatcherWaitsTouchesNoOtherThreadsDescriptors() throws {
        let (disturbed, opened) = socketPairsDisturbed {
            for _ in 0..<400 {
                guard let jobserver = try? self.pool(1) else { continue }
                _ = self.takeNow(jobserver)
                // Waits: the watcher polls the FIFO for it.
                let ticket = jobserver.acquire(1, handsOver: true) { _ in }
                jobserver.close()
                _ = jobserver.cancel(ticket)
            }
        }
        #expect(
            disturbed == 0, "\(disturbed) of \(opened) socket pairs were read or written by another"
        )
    }

    @Test func aStepWaitsWhileItsNeighboursJobsHoldEveryToken() throws {
        let jobserver = try pool(2)
        defer { jobserver.close() }
        #expect(takeNow(jobserver) != nil)
        clientTakes(jobserver)  // The first step's make starts a second job.
        let granted = DispatchSemaphore(value: 0)
        let second = Locked(false)
        _ = jobserver.acquire(1, handsOver: true) { _ in
            second.withLock { $0 = true }
            granted.signal()
        }
        #expect(!second.withLock { $0 })
        clientPutsBack(jobserver)  // That job is over.
        #expect(granted.wait(timeout: .now() + 10) == .success)
        #expect(inFIFO(jobserver) == 0)
    }

    @Test func aStepCancelledWhileWaitingNeverStartsAndKeepsNoToken() throws {
        let jobserver = try pool(2)
        defer { jobserver.close() }
        let first = try #require(takeNow(jobserver, handsOver: false))
        // Two tokens are one more than are free: it takes the one and waits for another.
        let waiting = jobserver.acquire(2, handsOver: false) { _ in Issue.record("granted") }
        #expect(inFIFO(jobserver) == 0)
        #expect(jobserver.cancel(waiting))
        #expect(!jobserver.cancel(waiting))
        #expect(inFIFO(jobserver) == 1)
        jobserver.release(first)
        #expect(inFIFO(jobserver) == 2)
    }

    @Test func tokensAKilledClientTookAreBackOnceNoClientRuns() throws {
        let jobserver = try pool(3)
        defer { jobserver.close() }
        let first = try #require(takeNow(jobserver))
        let second = try #require(takeNow(jobserver))
        clientTakes(jobserver)  // The first step's make takes a token and is killed.
        jobserver.release(first)
        // The second step's make might hold tokens: nothing is restored while it runs.
        #expect(inFIFO(jobserver) == 1)
        jobserver.release(second)
        #expect(inFIFO(jobserver) == 3)
    }

    @Test func aTokenAClientPutBackTwiceIsTakenOut() throws {
        let jobserver = try pool(2)
        defer { jobserver.close() }
        let tokens = try #require(takeNow(jobserver))
        clientPutsBack(jobserver)
        #expect(inFIFO(jobserver) == 2)
        jobserver.release(tokens)
        #expect(inFIFO(jobserver) == 2)
    }

    @Test func aProcflowThatJoinsAPoolLendsItsOwnSlotFirstAndRestoresNothing() throws {
        let outer = try pool(2)
        defer { outer.close() }
        #expect(takeNow(outer) != nil)  // The step running the inner procflow.
        let inner = try Jobserver(joining: outer.path, slots: 4)
        let own = try #require(takeNow(inner))
        #expect(own.implicit)
        #expect(inFIFO(outer) == 1)
        let second = try #require(takeNow(inner))
        #expect(!second.implicit)
        #expect(inFIFO(outer) == 0)
        let granted = DispatchSemaphore(value: 0)
        let third = Locked<Jobserver.Tokens?>(nil)
        _ = inner.acquire(1, handsOver: true) { tokens in
            third.withLock { $0 = tokens }
            granted.signal()
        }
        #expect(third.withLock { $0 } == nil)
        inner.release(own)
        #expect(granted.wait(timeout: .now() + 10) == .success)
        #expect(third.withLock { $0?.implicit } == true)
        // A token lost below the inner procflow is the outer one's to restore.
        inner.release(second)
        clientTakes(outer)
        inner.release(try #require(third.withLock { $0 }))
        #expect(inFIFO(outer) == 0)
        inner.close()
        #expect(FileManager.default.fileExists(atPath: outer.path))
    }

    @Test(
        arguments: [
            (nil, nil),
            (" -j2 --jobserver-auth=fifo:/p", "/p"),
            (" -j2 --jobserver-fds=3,4 --jobserver-auth=fifo:/p --jobserver-f=3,4", "/p"),
            ("k -j2 --jobserver-auth=fifo:/p", "/p"),
            (" -j2 --jobserver-auth=3,4", nil),
            (" -j2 --jobserver-auth=fifo:/p --jobserver-fds=3,4", nil),
            ("n -j2 --jobserver-auth=fifo:/p", nil),
        ] as [(String?, String?)])
    func theFIFOMakeflagsNameIsItsLastJobserverFlag(makeflags: String?, fifo: String?) {
        #expect(Jobserver.fifo(namedIn: makeflags) == fifo)
    }

    @Test func makeflagsOfferTheFIFOToNinjaAndTheDescriptorsToMake() throws {
        let jobserver = try pool(4)
        defer { jobserver.close() }
        let flags =
            " -j4 --jobserver-fds=3,4 --jobserver-auth=fifo:\(jobserver.path) --jobserver-f=3,4"
        #expect(jobserver.makeflags(after: nil) == flags)
        #expect(jobserver.makeflags(after: "k") == "k" + flags)
        #expect(inFIFO(jobserver) == 4)
    }

    @Test func theFIFOIsPrivateAndGoesWithTheRun() throws {
        let jobserver = try pool(1)
        var status = stat()
        #expect(stat(jobserver.path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFIFO)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(status.st_uid == geteuid())
        jobserver.close()
        #expect(!FileManager.default.fileExists(atPath: jobserver.path))
    }

    @Test func aRunsJobserverIsMadeAheadOnAWorkerThreadAndRemovedAtItsEnd() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try #require(RunJobserver(slots: 2, temporaryDirectory: directory.path))
        func fifos() -> [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        }
        #expect(run.prepare())
        // Once: the steps built after the first do not each set a worker to it.
        #expect(!run.prepare())
        let deadline = Date().addingTimeInterval(10)
        while fifos().isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(fifos().count == 1)
        // The step that asks takes the one made ahead.
        #expect(try directory.path + "/" + fifos()[0] == run.jobserver().path)
        run.close()
        #expect(fifos().isEmpty)
    }

    @Test func aRunsJobserverAskedForAfterTheRunEndedIsNeverMade() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try #require(RunJobserver(slots: 2, temporaryDirectory: directory.path))
        // A worker making it ahead that comes too late: nothing is left behind.
        run.close()
        #expect(throws: StepError.self) { try run.jobserver() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func aFIFOOthersCouldOpenIsRefusedAndRemoved() throws {
        // What a FIFO another user put in place of the run's between its making and its
        // opening looks like from here: not private.
        var made = ""
        #expect(throws: StepError.self) {
            try Jobserver(slots: 1, temporaryDirectory: NSTemporaryDirectory()) { path in
                made = path
                return mkfifo(path, 0o600) == 0 ? chmod(path, 0o666) : -1
            }
        }
        #expect(made.contains("/procflow-jobserver-"))
        #expect(!FileManager.default.fileExists(atPath: made))
    }

    // MARK: - Real clients

    /// Whether CI requires the tests with real make and ninja (`.ci/run` installs them and sets
    /// `PROCFLOW_REQUIRE_JOBSERVER_CLIENTS=1`): then they fail, rather than skip, without them.
    static let clientsRequired =
        ProcessInfo.processInfo.environment["PROCFLOW_REQUIRE_JOBSERVER_CLIENTS"] == "1"

    /// Whether the test with make runs: make is here, or CI requires it.
    static let makeRuns = clientsRequired || version(of: "make") != nil

    /// Whether the test with ninja runs: ninja 1.13 or later (the first with a jobserver
    /// client) is here, or CI requires it.
    static let ninjaRuns =
        clientsRequired
        || version(of: "ninja").map { !$0.lexicographicallyPrecedes([1, 13]) } == true

    /// The version of `program` (`make --version`'s first numbers, `ninja --version`'s).
    static func version(of program: String) -> [Int]? {
        guard let result = try? runProgram([program, "--version"]), result.status == 0,
            let match = result.stdout.firstMatch(of: /([0-9]+)\.([0-9]+)/)
        else { return nil }
        return [Int(match.output.1)!, Int(match.output.2)!]
    }

    /// Eight jobs that each log `s` to `$LOG` and `$LOG.$PROCFLOW_STEP` as they start, sleep,
    /// and log `e` as they end.
    private static let eightJobs = (1...8).map { "job\($0)" }
    private static let logJob =
        #"echo s >> "$$LOG"; echo s >> "$$LOG.$$PROCFLOW_STEP"; sleep 0.3; echo e >> "$$LOG.$$PROCFLOW_STEP"; echo e >> "$$LOG""#

    /// Four steps, each running `command` (a plain make or ninja, with no `-j` of its own) in a
    /// directory of its own, under `--max-concurrent 2`: `a`, `b` and `c` at once as far as
    /// the limit goes, then `d`, alone, after them. The jobs' logs, of all and of `d`.
    private func fourSteps(running command: String, files: (URL) throws -> Void) throws -> (
        all: String?, alone: String?, result: CommandResult
    ) {
        let steps = ["a", "b", "c", "d"]
        let fixture = try WorkflowFixture(
            workflow(
                steps.map { id in
                    let after = id == "d" ? #", "dependsOn": ["a", "b", "c"]"# : ""
                    return
                        #"{"id": "\#(id)", "kind": "shell", "cwd": "\#(id)", "run": "\#(command)"\#(after)}"#
                }
                .joined(separator: ",\n")))
        defer { fixture.remove() }
        for step in steps {
            let directory = fixture.directory.appendingPathComponent(step)
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true)
            try files(directory)
        }
        let log = fixture.directory.appendingPathComponent("log").path
        let result = try fixture.run(["-j", "2"], environment: ["LOG": log])
        return (fixture.contents("log"), fixture.contents("log.d"), result)
    }

    @Test(.enabled(if: makeRuns))
    func makeReadingTheDescriptorsSharesTheRunsLimit() throws {
        let version = try #require(Self.version(of: "make"), "make is not installed")
        let makefile =
            "all: \(Self.eightJobs.joined(separator: " "))\njob%:\n\t@\(Self.logJob)\n"
        let (all, alone, result) = try fourSteps(running: "make") { directory in
            try Data(makefile.utf8).write(to: directory.appendingPathComponent("Makefile"))
        }
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(all?.split(separator: "\n").count == 64)
        #expect(highestConcurrency(all) == 2, "make \(version)")
        // The make that had the run to itself used both slots: it read the jobserver.
        #expect(highestConcurrency(alone) == 2)
    }

    @Test(.enabled(if: ninjaRuns))
    func ninjaReadingTheFIFOSharesTheRunsLimit() throws {
        let version = try #require(Self.version(of: "ninja"), "ninja is not installed")
        #expect(
            !version.lexicographicallyPrecedes([1, 13]),
            "ninja \(version) has no jobserver client: pip install ninja")
        let ninjaFile =
            "rule job\n  command = \(Self.logJob)\n"
            + Self.eightJobs.map { "build \($0): job\n" }.joined()
        let (all, alone, result) = try fourSteps(running: "ninja") { directory in
            try Data(ninjaFile.utf8).write(to: directory.appendingPathComponent("build.ninja"))
        }
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Jobserver mode detected"))
        #expect(all?.split(separator: "\n").count == 64)
        #expect(highestConcurrency(all) == 2)
        #expect(highestConcurrency(alone) == 2)
    }

    // MARK: - What a command is handed

    /// A step that writes what it was handed to `NAME.txt`: `MAKEFLAGS`, its descriptors above
    /// 2, and what the FIFO `MAKEFLAGS` names is.
    private static func reporting(_ id: String, extra: String = "") -> String {
        #"{"id": "\#(id)", "kind": "shell", \#(extra)"run": "echo \"flags=$MAKEFLAGS\" > \#(id).txt; for fd in 3 4 5 6 7 8 9 10 11 12 13 14 15; do if [ -e /proc/$$/fd/$fd ]; then echo \"fd $fd $(stat -L -c %F /proc/$$/fd/$fd)\" >> \#(id).txt; fi; done; case $MAKEFLAGS in *fifo:*) p=${MAKEFLAGS##*fifo:}; stat -c '%F %a' ${p%% *} >> \#(id).txt;; esac"}"#
    }

    @Test func aCommandIsHandedTheJobserverUnlessItsStepOrTheRunSaysNo() throws {
        let fixture = try WorkflowFixture(
            workflow(
                Self.reporting("handed") + ",\n"
                    + Self.reporting("refused", extra: #""jobserver": false, "#)))
        defer { fixture.remove() }
        #expect(try fixture.run(["-j", "3"], environment: ["MAKEFLAGS": "k"]).status == 0)
        let handed = try #require(fixture.contents("handed.txt")).split(separator: "\n")
        #expect(
            handed.first?.hasPrefix("flags=k -j3 --jobserver-fds=3,4 --jobserver-auth=fifo:")
                == true)
        #expect(handed.first?.hasSuffix(" --jobserver-f=3,4") == true)
        #expect(handed.dropFirst() == ["fd 3 fifo", "fd 4 fifo", "fifo 600"])
        // No other descriptor, and no jobserver, reaches a command that says no.
        #expect(fixture.contents("refused.txt") == "flags=k\n")

        let fifo = try #require(handed.first?.firstMatch(of: /fifo:([^ ]+)/)?.output.1)
        #expect(!FileManager.default.fileExists(atPath: String(fifo)), "the FIFO outlived the run")

        #expect(try fixture.run(["--no-jobserver"], environment: ["MAKEFLAGS": "k"]).status == 0)
        #expect(fixture.contents("handed.txt") == "flags=k\n")
    }

    @Test func aTemporaryDirectoryWithASpaceLeavesTheFIFOInTmp() throws {
        // A space in `fifo:PATH` would split the word that names the FIFO in MAKEFLAGS.
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "a", "kind": "shell", "run": "printf %s \"$MAKEFLAGS\" > flags.txt"}"#))
        defer { fixture.remove() }
        let spaced = fixture.directory.appendingPathComponent("my tmp")
        try FileManager.default.createDirectory(at: spaced, withIntermediateDirectories: true)
        #expect(try fixture.run(environment: ["TMPDIR": spaced.path]).status == 0)
        #expect(
            fixture.contents("flags.txt")?.contains(
                "--jobserver-auth=fifo:/tmp/procflow-jobserver-") == true)
    }

    @Test(arguments: [([String](), true), (["-j", "1"], false)])
    func aProcflowAStepRunsJoinsItsPoolUnlessGivenAJ(arguments: [String], joins: Bool) throws {
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "outer", "kind": "shell", "run": "printf %s \"$MAKEFLAGS\" > outer.txt; \"$PROCFLOW\" run inner.json \#(arguments.joined(separator: " "))"}"#
            ))
        defer { fixture.remove() }
        try Data(
            workflow(
                #"{"id": "inner", "kind": "shell", "run": "printf %s \"$MAKEFLAGS\" > inner.txt"}"#
            )
            .utf8
        ).write(to: fixture.directory.appendingPathComponent("inner.json"))
        #expect(try fixture.run(["-j", "2"]).status == 0)
        let fifo = { (flags: String?) in Jobserver.fifo(namedIn: flags) }
        let outer = try #require(fifo(fixture.contents("outer.txt")))
        let inner = try #require(fifo(fixture.contents("inner.txt")))
        #expect((inner == outer) == joins)
    }

    @Test func aJobserverThatCannotBeMadeFailsTheStepsSayingSo() throws {
        let fixture = try WorkflowFixture(
            workflow(#"{"id": "build", "kind": "shell", "run": "true"}"#))
        defer { fixture.remove() }
        let (result, events) = try fixture.events(
            [], environment: ["TMPDIR": fixture.directory.path + "/missing"])
        #expect(result.status == 1)
        let reason = try #require(reasons(events)["build"])
        #expect(reason.hasPrefix("cannot make the jobserver: cannot make a FIFO in "))
        #expect(
            reason.hasSuffix("No such file or directory; run with --no-jobserver to go without"))
        #expect(
            try fixture.run(["--no-jobserver"], environment: ["TMPDIR": "/missing"]).status == 0)
    }

    @Test func aStepWaitingForTokensEndsAtItsTimeout() throws {
        // `hog` takes the run's second token, as a make starting a job would, and keeps it
        // until `after` (a file step: it takes no token) has run; `waiter`, started then,
        // waits for a token until its timeout ends the wait — else `hog` would wait for it
        // until its own timeout.
        let fixture = try WorkflowFixture(
            workflow(
                #"""
                {"id": "hog", "kind": "shell", "timeout": 30,
                 "run": "head -c 1 <&3 > /dev/null; touch taken; while [ ! -e waited ]; do sleep 0.05; done"},
                {"id": "waiter", "kind": "shell", "timeout": 1, "continueOnError": true,
                 "when": {"command": "while [ ! -e taken ]; do sleep 0.05; done"}, "run": "true"},
                {"id": "after", "kind": "file", "op": "write", "path": "waited", "content": "",
                 "dependsOn": ["waiter"]}
                """#))
        defer { fixture.remove() }
        let (result, events) = try fixture.events(["-j", "2"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            statuses(events) == ["hog": "succeeded", "waiter": "warning", "after": "succeeded"])
        #expect(reasons(events)["waiter"]?.hasPrefix("timed out after") == true)
    }

    @Test func tokensACommandTookWithItAreBackForTheNextStep() throws {
        // `crash` takes the run's second token, as a make starting a job would, and exits
        // without putting it back; `next` needs a token beside its own, as a make's second job
        // would, and waits for one until its timeout unless the run put the lost one back.
        let fixture = try WorkflowFixture(
            workflow(
                #"""
                {"id": "crash", "kind": "shell", "run": "head -c 1 <&3 > /dev/null"},
                {"id": "next", "kind": "shell", "timeout": 20, "dependsOn": ["crash"],
                 "run": "head -c 1 <&3 > /dev/null; printf + >&4"}
                """#))
        defer { fixture.remove() }
        let (result, events) = try fixture.events(["-j", "2"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(statuses(events) == ["crash": "succeeded", "next": "succeeded"])
    }

    @Test(arguments: [(cpus: 1, left: "a token"), (cpus: 2, left: "none")])
    func aStepTakesATokenForEachCPUItNeeds(cpus: Int, left: String) throws {
        // Under -j 2, what the pool has left while the step runs, looked at without waiting.
        let fixture = try WorkflowFixture(
            workflow(
                #"""
                {"id": "wide", "kind": "shell", "resources": {"cpus": \#(cpus)},
                 "run": "if dd if=/dev/fd/3 of=/dev/null bs=1 count=1 iflag=nonblock 2>/dev/null; then printf + >&4; echo 'a token' > left.txt; else echo none > left.txt; fi"}
                """#))
        defer { fixture.remove() }
        #expect(try fixture.run(["-j", "2"]).status == 0)
        #expect(fixture.contents("left.txt") == left + "\n")
    }

    @Test func aStepThatSaysNoStillTakesItsToken() throws {
        // Under -j 2, `quiet` (handed nothing) and `looker` run at once: while both run, the
        // pool has no token left.
        let fixture = try WorkflowFixture(
            workflow(
                #"""
                {"id": "quiet", "kind": "shell", "jobserver": false,
                 "run": "touch started; while [ ! -e looked ]; do sleep 0.05; done"},
                {"id": "looker", "kind": "shell",
                 "run": "while [ ! -e started ]; do sleep 0.05; done; if dd if=/dev/fd/3 of=/dev/null bs=1 count=1 iflag=nonblock 2>/dev/null; then printf + >&4; echo 'a token' > left.txt; else echo none > left.txt; fi; touch looked"}
                """#))
        defer { fixture.remove() }
        #expect(try fixture.run(["-j", "2"]).status == 0)
        #expect(fixture.contents("left.txt") == "none\n")
    }

    @Test func jobserverIsABooleanOfShellSteps() {
        #expect(
            diagnostics(
                workflow(#"{"id": "a", "kind": "shell", "run": "make", "jobserver": "no"}"#)
            )
            .contains { $0.contains("expected true or false, found a string") })
        #expect(
            diagnostics(
                workflow(
                    #"{"id": "a", "kind": "http", "url": "http://x.test", "jobserver": false}"#)
            ).contains { $0.contains("jobserver") })
        let loaded = try? loadWorkflow(
            workflow(#"{"id": "a", "kind": "shell", "run": "make", "jobserver": false}"#)
        ).get()
        guard case .shell(let shell) = loaded?.steps.first?.kind else {
            Issue.record("not a shell step")
            return
        }
        #expect(!shell.jobserver)
    }
}

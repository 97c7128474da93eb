import Foundation
import ProcedureKit
import Testing

@testable import Procflow

extension WorkflowFixture {
    /// Writes `text` to `name` in the fixture's directory, creating directories.
    func write(_ name: String, _ text: String) throws {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func delete(_ name: String) throws {
        try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
    }

    func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path)
    }

    /// The incremental step `id` of the fixture's `flow.json`, and a cache of its state
    /// directory that knows that one step: to decide and record it in this process.
    func cacheOfStep(_ id: String) throws -> (StepCache, IncrementalStep) {
        let workflow = try WorkflowLoader.load(path: directory.path + "/flow.json")
        let step = try #require(IncrementalStep.all(in: workflow, directory: directory.path)[id])
        let cache = StepCache(
            directory: StateDirectory(path: directory.path + "/.procflow"),
            workflowFile: workflow.path, stepIDs: [id])
        return (cache, step)
    }

    /// The path (from the fixture's directory) of the state file of the workflow file with
    /// extension `kind` (`state`, `lock`, `uptodate`) in the state directory `state`, if
    /// there is one.
    func stateFile(_ kind: String, in state: String = ".procflow") -> String? {
        let names = try? FileManager.default.contentsOfDirectory(
            atPath: directory.appendingPathComponent(state).path)
        return names?.first { $0.hasPrefix(file + "-") && $0.hasSuffix("." + kind) }
            .map { state + "/" + $0 }
    }

    /// The lines commands appended to `runs.log`: which steps ran, in order.
    var ran: [String] {
        (contents("runs.log") ?? "").split(separator: "\n").map(String.init)
    }

    /// Runs, and returns the ids of the steps that ran (their `runs.log` lines), clearing the
    /// log; records a failed run.
    func runSteps(
        _ arguments: [String] = [], sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> (ran: [String], statuses: [String: String], events: [[String: Any]]) {
        try? delete("runs.log")
        let (result, events) = try self.events(arguments)
        #expect(
            result.status == 0, "\(result.stderr)\(result.stdout)", sourceLocation: sourceLocation)
        return (ran.sorted(), statuses(events), events)
    }

    /// Waits until the status of every file in the fixture's directory (the state directory
    /// aside) can be trusted to show a change, as a run judges it: until the clock has passed
    /// the last change of each by its racy window (a second).
    func waitUntilStatusesAreTrusted() {
        let root = directory.path
        let files = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? [])
            .filter { !$0.hasPrefix(".procflow") }
        let statuses = ([root] + files.map { root + "/" + $0 }).compactMap(FileSystem.status)
        while !statuses.allSatisfy({ $0.isSettled(at: FileSystem.now()) }) {
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// The workflow file with `old` replaced by `new`.
    func edit(_ old: String, _ new: String) throws {
        let text = contents(file)!
        #expect(text.contains(old))
        try write(file, text.replacingOccurrences(of: old, with: new))
    }
}

/// Why each step ran, from `step.explained` events.
func explained(_ events: [[String: Any]]) -> [String: String] {
    var reasons: [String: String] = [:]
    for event in events where event["event"] as? String == "step.explained" {
        reasons[event["step"] as! String] = event["reason"] as? String
    }
    return reasons
}

/// A step whose command notes that it ran, then does `script`.
func noting(_ id: String, _ script: String) -> String {
    "echo \(id) >> runs.log; \(script)"
}

@Suite("Incremental runs")
struct IncrementalRunTests {

    static let pipeline = """
        {"vars": {"MODE": "fast"},
         "procedures": [
          {"id": "gen", "kind": "shell", "run": "\(noting("gen", "tr -d ' ' < in.txt > mid.txt; printf v1"))",
           "output": "text", "sources": ["in.txt"], "generates": ["mid.txt"]},
          {"id": "use", "kind": "shell", "run": "\(noting("use", "cat mid.txt > out.txt; printf %s $V >> out.txt"))",
           "inputs": {"V": {"from": "gen"}}, "sources": ["mid.txt"], "generates": ["out.txt"]},
          {"id": "other", "kind": "shell", "run": "\(noting("other", "cp other.txt other.out"))",
           "sources": ["other.txt"], "generates": ["other.out"]}
        ]}
        """

    static func pipelineFixture() throws -> WorkflowFixture {
        let fixture = try WorkflowFixture(pipeline)
        try fixture.write("in.txt", "a b c\n")
        try fixture.write("other.txt", "other\n")
        return fixture
    }

    @Test func aSecondRunFindsEveryStepUpToDateAndGivesTheRecordedOutput() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        let first = try fixture.runSteps()
        #expect(first.ran == ["gen", "other", "use"])
        #expect(fixture.contents("out.txt") == "abc\nv1")
        let second = try fixture.runSteps()
        #expect(second.ran == [])
        #expect(second.statuses == ["gen": "cached", "use": "cached", "other": "cached"])
        let cached = second.events.filter { $0["event"] as? String == "step.cached" }
        #expect(Set(cached.compactMap { $0["step"] as? String }) == ["gen", "use", "other"])
        // Nothing to do: one line; every step's with --verbose.
        let text = try fixture.run()
        #expect(text.stdout.hasPrefix("procflow: 3 steps up to date ("), "\(text.stdout)")
        #expect(text.stdout.split(separator: "\n").count == 1, "\(text.stdout)")
        let verbose = try fixture.run(["--verbose"])
        #expect(verbose.stdout.contains("gen   ✓ up to date"))
        #expect(verbose.stdout.contains("3 cached"))
    }

    @Test func aSourceEditRunsExactlyTheStepsThatReadIt() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        try fixture.write("other.txt", "changed\n")
        try fixture.delete("runs.log")
        #expect(try fixture.runSteps().ran == ["other"])
        try fixture.write("in.txt", "x y\n")
        let run = try fixture.runSteps()
        #expect(run.ran == ["gen", "use"])
        #expect(fixture.contents("out.txt") == "xy\nv1")
    }

    @Test func earlyCutoffAStepWhoseUpstreamMadeTheSameFilesAndDataStaysUpToDate() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        // Spaces are dropped: gen runs again and makes the same mid.txt and output.
        try fixture.write("in.txt", "a  b  c\n")
        let run = try fixture.runSteps()
        #expect(run.ran == ["gen"])
        #expect(run.statuses["use"] == "cached")
    }

    @Test func eachForEachInstanceIsUpToDateOnItsOwnSourcesAcrossRuns() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "cc", "kind": "shell", "forEach": {"in": ["a", "b"]},
               "run": "echo cc-$item >> runs.log; cp src/$item.c $item.o",
               "sources": ["src/${item}.c"], "generates": ["${item}.o"]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("src/a.c", "a1\n")
        try fixture.write("src/b.c", "b1\n")
        #expect(try fixture.runSteps().ran == ["cc-a", "cc-b"])
        let second = try fixture.runSteps()
        #expect(second.ran == [])
        #expect(second.statuses["cc[0]"] == "cached")
        // The record of an instance outlives the run that found it up to date.
        try fixture.write("src/a.c", "a2\n")
        let third = try fixture.runSteps(["--explain"])
        #expect(third.ran == ["cc-a"])
        #expect(explained(third.events)["cc[0]"] == "source src/a.c changed")
        #expect(fixture.contents("a.o") == "a2\n")
        try fixture.delete("b.o")
        #expect(try fixture.runSteps().ran == [])
        #expect(fixture.contents("b.o") == "b1\n")
    }

    @Test func forEachItemsNameFilesAsTheyAreAndStepsInsideAForEachAreIncremental() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "cc", "kind": "shell", "forEach": {"in": ["a[1]"]},
               "run": "echo cc >> runs.log", "sources": ["src/${item}.c"]},
              {"id": "each", "kind": "group", "forEach": {"in": ["x"]}, "procedures": [
                {"id": "inner", "kind": "shell", "run": "echo inner >> runs.log",
                 "sources": ["${item}.txt"]}]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("src/a[1].c", "A\n")
        try fixture.write("src/a1.c", "one\n")
        try fixture.write("x.txt", "x\n")
        #expect(try fixture.runSteps().ran == ["cc", "inner"])
        // src/a1.c is not src/a[1].c, though the glob [1] would match it.
        try fixture.write("src/a1.c", "two\n")
        let second = try fixture.runSteps()
        #expect(second.ran == [])
        #expect(second.statuses["each[0].inner"] == "cached")
        try fixture.write("x.txt", "y\n")
        #expect(try fixture.runSteps().ran == ["inner"])
        // The index keeps the records of the instances.
        let index = try #require(
            FileManager.default.contentsOfDirectory(
                atPath: fixture.directory.appendingPathComponent(".procflow").path
            ).first { $0.hasSuffix(".state") })
        let state = try Data(
            contentsOf: fixture.directory.appendingPathComponent(".procflow/\(index)"))
        #expect(state.range(of: Data("each[0].inner".utf8)) != nil)
    }

    @Test func aChangedWiredValueRunsTheStepThatTakesIt() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        try fixture.edit("printf v1", "printf v2")
        let run = try fixture.runSteps(["--explain"])
        #expect(run.ran == ["gen", "use"])
        #expect(fixture.contents("out.txt") == "abc\nv2")
        let reasons = explained(run.events)
        #expect(reasons["gen"] == "command changed")
        #expect(reasons["use"] == "input V changed")
    }

    @Test func environmentAndVariableChangesRunTheSteps() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        #expect(try fixture.runSteps(["--var", "MODE=slow"]).ran == ["gen", "other", "use"])
        #expect(try fixture.runSteps(["--var", "MODE=slow"]).ran == [])
        try fixture.edit(
            #""sources": ["other.txt"]"#, #""env": {"X": "1"}, "sources": ["other.txt"]"#)
        #expect(try fixture.runSteps(["--var", "MODE=slow"]).ran == ["other"])
    }

    @Test func depfileHeadersBecomeSources() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "sources": ["a.c"], "depfile": "a.d", "generates": ["a.o"],
               "run": "\(noting("a", "printf 'a.o: a.c \\\\\\\\\\\\n  common.h a.h\\\\n' > a.d; cat a.c common.h a.h > a.o"))"},
              {"id": "b", "kind": "shell", "sources": ["b.c"], "depfile": "b.d", "generates": ["b.o"],
               "run": "\(noting("b", "printf 'b.o: b.c common.h\\\\n' > b.d; cat b.c common.h > b.o"))"}
            ]}
            """)
        defer { fixture.remove() }
        for file in ["a.c", "b.c", "common.h", "a.h"] { try fixture.write(file, file) }
        // A header changed within a tick of the kernel's clock before its step starts counts
        // as changed while the step ran.
        Thread.sleep(forTimeInterval: 0.02)
        #expect(try fixture.runSteps().ran == ["a", "b"])
        #expect(try fixture.runSteps().ran == [])
        try fixture.write("a.h", "a.h changed")
        let run = try fixture.runSteps(["--explain"])
        #expect(run.ran == ["a"])
        #expect(
            run.events.contains {
                $0["step"] as? String == "a" && $0["reason"] as? String == "source a.h changed"
            })
        try fixture.write("common.h", "common changed")
        #expect(try fixture.runSteps().ran == ["a", "b"])
    }

    @Test func deletedAndHandEditedOutputsAreRestoredWithoutRunning() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        try fixture.delete("out.txt")
        try fixture.write("other.out", "edited by hand\n")
        let run = try fixture.runSteps()
        #expect(run.ran == [])
        #expect(fixture.contents("out.txt") == "abc\nv1")
        #expect(fixture.contents("other.out") == "other\n")
        let notes = run.events.compactMap { $0["note"] as? String }
        #expect(notes.contains("restored out.txt"))
        let kept = try #require(notes.first { $0.hasPrefix("restored other.out; ") })
        // The copy changed by hand is not lost: it is kept in the store.
        let path = try #require(kept.split(separator: " ").last.map(String.init))
        #expect((try? String(contentsOfFile: path, encoding: .utf8)) == "edited by hand\n")
    }

    @Test func switchingBackToEarlierSourcesRestoresTheirOutputsWithoutRunning() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        try fixture.write("in.txt", "branch two\n")
        #expect(try fixture.runSteps().ran == ["gen", "use"])
        #expect(fixture.contents("out.txt") == "branchtwo\nv1")
        try fixture.write("in.txt", "a b c\n")
        let back = try fixture.runSteps()
        #expect(back.ran == [])
        #expect(fixture.contents("mid.txt") == "abc\n")
        #expect(fixture.contents("out.txt") == "abc\nv1")
        #expect(back.statuses == ["gen": "cached", "use": "cached", "other": "cached"])
        // And forth again: the runs put back replaced the second branch's, which stay known.
        try fixture.write("in.txt", "branch two\n")
        #expect(try fixture.runSteps().ran == [])
        #expect(fixture.contents("out.txt") == "branchtwo\nv1")
    }

    @Test func aStepsFirstRunWritesNoHistoryAndARunItReplacesGoesThere() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        func histories() -> [String] {
            let folder = fixture.directory.appendingPathComponent(".procflow/history").path
            return (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        }
        _ = try fixture.runSteps()
        // The last run of each step is in the index: a first build makes no other file.
        #expect(histories() == [])
        try fixture.write("in.txt", "x y\n")
        #expect(try fixture.runSteps().ran == ["gen", "use"])
        #expect(histories().count == 2)
        // A run found up to date replaces nothing.
        #expect(try fixture.runSteps().ran == [])
        #expect(histories().count == 2)
    }

    @Test func aRunAnotherRunRecordedMeanwhileIsNotLost() throws {
        // x, once it has read the index, waits for the file `go` before it runs s; y, run
        // meanwhile, does not wait.
        let fixture = try WorkflowFixture(
            """
            {"vars": {"V": "a", "GATE": "open"},
             "procedures": [
              {"id": "gate", "kind": "shell",
               "run": "touch started-$V; while [ ! -e $GATE ]; do sleep 0.02; done"},
              {"id": "s", "kind": "shell", "generates": ["out.txt"], "cache": true,
               "dependsOn": ["gate"], "run": "touch ran-$V; printf $V > out.txt"}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("open", "")
        #expect(try fixture.run().status == 0)
        let x = Locked<CommandResult?>(nil)
        let xEnded = DispatchSemaphore(value: 0)
        // A thread of its own: the run blocks it for seconds.
        Thread {
            let result = try? fixture.run(["--var", "V=c", "--var", "GATE=go"])
            x.withLock { $0 = result }
            xEnded.signal()
        }.start()
        let deadline = Date().addingTimeInterval(30)
        while !fixture.exists("started-c"), Date() < deadline { usleep(20_000) }
        #expect(try fixture.run(["--var", "V=b"]).status == 0)
        try fixture.write("go", "")
        #expect(xEnded.wait(timeout: .now() + 60) == .success)
        #expect(x.withLock { $0?.status } == 0)
        #expect(fixture.contents("out.txt") == "c")
        // x replaced the record y saved while it ran: y's run is still put back.
        try fixture.delete("ran-b")
        let back = try fixture.events(["--var", "V=b"])
        #expect(statuses(back.1)["s"] == "cached")
        #expect(!fixture.exists("ran-b"))
        #expect(fixture.contents("out.txt") == "b")
    }

    @Test func aRemovedOutputThatTheStoreNoLongerHasRunsTheStep() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        let cleaned = try runProcflow(
            ["cache", "prune", "flow.json", "--max-size", "0"], in: fixture.directory)
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        try fixture.delete("other.out")
        let run = try fixture.runSteps(["--explain"])
        #expect(run.ran == ["other"])
        #expect(
            run.events.contains {
                $0["step"] as? String == "other" && $0["reason"] as? String == "other.out missing"
            })
    }

    @Test func explanationsNameWhatChanged() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        func reasons(_ arguments: [String] = []) throws -> [String: String] {
            explained(try fixture.events(["--explain"] + arguments).1)
        }
        #expect(
            try reasons() == [
                "gen": "no earlier run", "use": "no earlier run", "other": "no earlier run",
            ])
        try fixture.write("other.txt", "new\n")
        #expect(try reasons() == ["other": "source other.txt changed"])
        try fixture.edit("cp other.txt other.out", "cp other.txt other.out ")
        #expect(try reasons() == ["other": "command changed"])
        #expect(try reasons(["--force"]).values.allSatisfy { $0 == "--force" })
    }

    @Test func forceRunsEverythingAndRecordsItNoCacheTouchesNothing() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        #expect(try fixture.runSteps(["--no-cache"]).ran == ["gen", "other", "use"])
        #expect(!fixture.exists(".procflow"))
        _ = try fixture.runSteps()
        #expect(try fixture.runSteps(["--force"]).ran == ["gen", "other", "use"])
        #expect(try fixture.runSteps().ran == [])
        #expect(try fixture.runSteps(["--no-cache"]).ran == ["gen", "other", "use"])
    }

    @Test func dryRunSaysWhatWouldRunAndWhatIsUpToDate() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        try fixture.write("in.txt", "changed\n")
        try fixture.delete("runs.log")
        let result = try fixture.run(["--dry-run"])
        #expect(result.status == 0)
        #expect(
            result.stdout.contains(
                "1. gen [shell: echo gen >> runs.log; tr -d ' ' < in.txt > mid.txt; printf v1]: runs: source in.txt changed"
            ))
        #expect(result.stdout.contains("after gen; may run: gen may run first"))
        #expect(result.stdout.contains(": up to date"))
        #expect(fixture.ran.isEmpty)
    }

    @Test func theStateCanLiveElsewhere() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        let elsewhere = fixture.directory.appendingPathComponent("state/here").path
        _ = try fixture.runSteps(["--state-dir", elsewhere])
        #expect(!fixture.exists(".procflow"))
        #expect(fixture.stateFile("state", in: "state/here") != nil)
        #expect(try fixture.runSteps(["--state-dir", elsewhere]).ran == [])
        #expect(try fixture.runSteps().ran == ["gen", "other", "use"])
    }

    @Test func aDamagedOrForeignStateIsAWarningAndAFullRun() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        let index = fixture.directory.appendingPathComponent(
            try #require(fixture.stateFile("state")))
        var bytes = try Data(contentsOf: index)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: index)
        try fixture.delete("runs.log")
        let damaged = try fixture.run(["--events", "json"])
        #expect(damaged.status == 0)
        #expect(damaged.stderr.contains("warning: ignoring the state in"))
        #expect(
            damaged.stderr.contains(
                "it is damaged (its checksum is wrong); every incremental step runs"))
        #expect(fixture.ran.sorted() == ["gen", "other", "use"])
        #expect(try fixture.runSteps().ran == [])
        bytes = try Data(contentsOf: index)
        bytes[8] = 99
        try bytes.write(to: index)
        let foreign = try fixture.run()
        #expect(foreign.stderr.contains("it has format version 99, and this procflow reads 3"))
        try Data("garbage".utf8).write(to: index)
        let garbage = try fixture.run()
        #expect(garbage.status == 0)
        #expect(garbage.stderr.contains("not a procflow state file"))
    }

    @Test func aStateDirectoryThatCannotBeWrittenIsAWarningNotAFailure() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        try fixture.write("blocker", "a file where the state directory would go\n")
        let result = try fixture.run(["--state-dir", "blocker/state"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.ran.sorted() == ["gen", "other", "use"])
        #expect(result.stderr.contains("warning: gen: mid.txt could not be stored: "))
        #expect(result.stderr.contains("warning: the state could not be saved: "))
    }

    @Test func aDamagedStoredCopyIsNotRestored() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        let objects = fixture.directory.appendingPathComponent(".procflow/objects")
        let stored = FileManager.default.enumerator(atPath: objects.path)!.compactMap {
            $0 as? String
        }.filter { $0.count > 3 }
        for object in stored {
            try Data("tampered".utf8).write(to: objects.appendingPathComponent(object))
        }
        try fixture.delete("other.out")
        let run = try fixture.runSteps()
        #expect(run.ran == ["other"])
        #expect(fixture.contents("other.out") == "other\n")
    }

    @Test func concurrentRunsOfOneWorkflowKeepTheStateWhole() throws {
        let steps = (0..<12).map { index in
            """
            {"id": "s\(index)", "kind": "shell",
             "run": "sleep 0.0\(index % 5); cp in\(index).txt out\(index).tmp$$ && mv out\(index).tmp$$ out\(index).txt",
             "sources": ["in\(index).txt"], "generates": ["out\(index).txt"]}
            """
        }
        let fixture = try WorkflowFixture(#"{"procedures": [\#(steps.joined(separator: ","))]}"#)
        defer { fixture.remove() }
        for index in 0..<12 { try fixture.write("in\(index).txt", "\(index)") }
        // Runs of one step and of all of them at once: they run, store and save together.
        // Each command writes its output under a name of its own and renames it: two runs
        // may run one step at once, and two `cp`s racing to create one file fail ("File
        // exists"), which is the commands' race, not the state's.
        let results = Locked([CommandResult]())
        DispatchQueue.concurrentPerform(iterations: 8) { run in
            let arguments = run % 2 == 0 ? ["--only", "s\(run)"] : []
            let result = try? fixture.run(arguments + ["--events", "json"])
            results.withLock {
                $0.append(result ?? CommandResult(status: -1, stdout: "", stderr: "not run"))
            }
        }
        for result in results.withLock({ $0 }) {
            let failures = result.stdout.split(separator: "\n").filter {
                $0.contains("\"step.failed\"")
            }
            #expect(result.status == 0, "\(result.stderr)\(failures.joined(separator: "\n"))")
            // A step two runs ran at once is recorded by neither: the only warning.
            let warnings = result.stderr.split(separator: "\n").filter {
                !$0.hasSuffix(
                    ": another run ran it at the same time; this run is not recorded, and the step runs next time"
                )
            }
            #expect(warnings.isEmpty, "\(warnings)")
        }
        // The next run runs those alone; then everything is up to date, and right.
        let next = try fixture.run()
        #expect(next.status == 0)
        #expect(next.stderr == "")
        let (result, events) = try fixture.events()
        #expect(result.stderr == "")
        #expect(Set(statuses(events).values) == ["cached"])
        for index in 0..<12 { #expect(fixture.contents("out\(index).txt") == "\(index)") }
    }

    @Test func aStepThatDoesNotMakeWhatItGeneratesFails() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "true", "generates": ["never.txt"]},
              {"id": "b", "kind": "shell", "run": "true", "sources": [], "depfile": "b.d"}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        #expect(reasons(events)["a"] == "it did not make never.txt, which it generates")
        #expect(
            reasons(events)["b"]?.hasPrefix("cannot read its depfile b.d: No such file") == true)
    }

    @Test func cacheTrueMakesAPureTransformIncrementalAndCacheFalseTurnsItOff() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "pure", "kind": "shell", "run": "\(noting("pure", "printf 42"))", "output": "json", "cache": true},
              {"id": "copy", "kind": "file", "op": "copy", "source": "a.txt", "path": "b.txt", "cache": true},
              {"id": "off", "kind": "shell", "run": "\(noting("off", "true"))", "sources": ["a.txt"], "cache": false},
              {"id": "show", "kind": "shell", "run": "\(noting("show", "printf %s $N > n.txt"))",
               "inputs": {"N": {"from": "pure"}}, "generates": ["n.txt"]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("a.txt", "A")
        #expect(try fixture.runSteps().ran == ["off", "pure", "show"])
        let second = try fixture.runSteps()
        #expect(second.ran == ["off"])
        #expect(second.statuses["copy"] == "cached")
        try fixture.delete("b.txt")
        #expect(try fixture.runSteps().statuses["copy"] == "cached")
        #expect(fixture.contents("b.txt") == "A")
        try fixture.write("a.txt", "B")
        #expect(try fixture.runSteps().statuses["copy"] == "succeeded")
        #expect(fixture.contents("b.txt") == "B")
    }

    @Test func cacheCleanForgetsEverything() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        let result = try runProcflow(["cache", "clean", "flow.json"], in: fixture.directory)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("removed "))
        #expect(!fixture.exists(".procflow"))
        #expect(try fixture.runSteps().ran == ["gen", "other", "use"])
    }

    @Test func anUpToDateRunIsRecognisedAgainFromItsSnapshot() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        // Statuses are trusted once files are older than the racy window.
        Thread.sleep(forTimeInterval: 1.2)
        #expect(try fixture.runSteps().ran == [])
        #expect(fixture.stateFile("uptodate") != nil)
        let fromSnapshot = try fixture.runSteps()
        #expect(fromSnapshot.ran == [])
        #expect(fromSnapshot.statuses == ["gen": "cached", "use": "cached", "other": "cached"])
        try fixture.write("other.txt", "changed\n")
        #expect(try fixture.runSteps().ran == ["other"])
        // What it leaves settles the steps that did not run, not the one that did.
        #expect(try fixture.settledBySnapshot() == ["gen", "use"])
        Thread.sleep(forTimeInterval: 1.2)
        _ = try fixture.runSteps()
        #expect(fixture.stateFile("uptodate") != nil)
        #expect(try fixture.runSteps(["--var", "MODE=slow"]).ran == ["gen", "other", "use"])
        try fixture.edit("cp other.txt", "cp  other.txt")
        #expect(try fixture.runSteps(["--var", "MODE=slow"]).ran == ["other"])
    }

    @Test func aSnapshotTakenOfAFreshWorkflowFileTrustsItsStatusOnceSettled() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        func trustedStatus() throws -> FileStatus? {
            try #require(try fixture.snapshot()).workflowStatus
        }
        _ = try fixture.runSteps()
        fixture.waitUntilStatusesAreTrusted()
        // The workflow written again, the same: a snapshot taken now cannot trust its status.
        try fixture.write(fixture.file, try #require(fixture.contents(fixture.file)))
        #expect(try fixture.runSteps().ran == [])
        #expect(try trustedStatus() == nil)
        fixture.waitUntilStatusesAreTrusted()
        // Told by its content, the workflow's status is kept for the next runs.
        #expect(try fixture.runSteps().ran == [])
        #expect(try trustedStatus() != nil)
        #expect(try fixture.runSteps().ran == [])
        // A change to it is still seen.
        try fixture.edit("cp other.txt", "cp  other.txt")
        #expect(try fixture.runSteps().ran == ["other"])
    }

    @Test func aSnapshotOfThousandsOfFilesSeesAChangeToAnyOfThem() throws {
        // Enough files that the check looks at them on several threads; listed one by one,
        // as a wildcard's listing leaves no snapshot.
        let count = 3_000
        let sources = (0..<count).map { "\"in/\($0).txt\"" }.joined(separator: ", ")
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "s", "kind": "shell", "run": "\(noting("s", "true"))", "sources": [\(sources)]}
            ]}
            """)
        defer { fixture.remove() }
        for n in 0..<count { try fixture.write("in/\(n).txt", "\(n)") }
        #expect(try fixture.runSteps().ran == ["s"])
        for changed in [count - 1, count / 2, 0] {
            // Statuses are trusted once files are older than the racy window.
            Thread.sleep(forTimeInterval: 1.2)
            #expect(try fixture.runSteps().ran == [])
            #expect(fixture.stateFile("uptodate") != nil)
            #expect(try fixture.runSteps().ran == [])
            try fixture.write("in/\(changed).txt", "changed")
            #expect(try fixture.runSteps().ran == ["s"], "file \(changed) changed")
        }
    }

    @Test func includedAndDotenvFilesAreInputsOfTheSnapshotAndOfTheSteps() throws {
        let fixture = try WorkflowFixture(
            """
            {"include": [{"path": "sub.json", "as": "sub"}], "dotenv": [".env"],
             "procedures": [
              {"id": "a", "kind": "shell", "run": "echo a >> runs.log; printf %s $A > a.out",
               "sources": ["in.txt"], "generates": ["a.out"]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("in.txt", "x\n")
        try fixture.write(".env", "A=1\n")
        try fixture.write(
            "sub.json",
            #"{"procedures": [{"id": "b", "kind": "shell", "run": "echo b >> runs.log; echo v1 > b.out", "sources": ["in.txt"], "generates": ["b.out"]}]}"#
        )
        #expect(try fixture.runSteps().ran == ["a", "b"])
        Thread.sleep(forTimeInterval: 1.2)
        #expect(try fixture.runSteps().ran == [])
        #expect(fixture.stateFile("uptodate") != nil)
        // The included file changes, the workflow file does not.
        try fixture.write("sub.json", fixture.contents("sub.json")!.replacing("v1", with: "v2"))
        #expect(try fixture.runSteps().ran == ["b"])
        #expect(fixture.contents("b.out") == "v2\n")
        Thread.sleep(forTimeInterval: 1.2)
        _ = try fixture.runSteps()
        #expect(fixture.stateFile("uptodate") != nil)
        try fixture.write(".env", "A=2\n")
        let run = try fixture.runSteps(["--explain"])
        #expect(run.ran == ["a", "b"])
        #expect(explained(run.events)["a"] == "dotenv .env: A changed")
        #expect(fixture.contents("a.out") == "2")
    }

    @Test func aCacheKeyCommandOrFileThatChangesIsSeenPastTheSnapshot() throws {
        let fixture = try WorkflowFixture(
            """
            {"cacheKey": [{"command": "cat tool-version"}],
             "procedures": [
              {"id": "a", "kind": "shell", "run": "\(noting("a", "cp in.txt a.out"))",
               "cacheKey": [{"file": "tool.conf"}], "sources": ["in.txt"], "generates": ["a.out"]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("in.txt", "x\n")
        try fixture.write("tool-version", "1.0\n")
        try fixture.write("tool.conf", "fast\n")
        #expect(try fixture.runSteps().ran == ["a"])
        Thread.sleep(forTimeInterval: 1.2)
        #expect(try fixture.runSteps().ran == [])
        #expect(fixture.stateFile("uptodate") != nil)
        // The command gives something else: the snapshot runs it again and does not answer.
        try fixture.write("tool-version", "2.0\n")
        #expect(try fixture.runSteps().ran == ["a"])
        Thread.sleep(forTimeInterval: 1.2)
        #expect(try fixture.runSteps().ran == [])
        #expect(fixture.stateFile("uptodate") != nil)
        try fixture.write("tool.conf", "slow\n")
        #expect(try fixture.runSteps().ran == ["a"])
    }

    @Test func aSnapshotRunsNoCacheKeyCommandOfAWorkflowThatChanged() throws {
        let fixture = try WorkflowFixture(
            """
            {"cacheKey": [{"command": "echo ran >> key-runs.log; echo 1"}],
             "procedures": [
              {"id": "a", "kind": "shell", "run": "\(noting("a", "cp in.txt a.out"))",
               "sources": ["in.txt"], "generates": ["a.out"]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("in.txt", "x\n")
        _ = try fixture.runSteps()
        Thread.sleep(forTimeInterval: 1.2)
        _ = try fixture.runSteps()
        #expect(fixture.stateFile("uptodate") != nil)
        // The snapshot runs the command again.
        #expect(try fixture.runSteps().ran == [])
        #expect(fixture.contents("key-runs.log") == "ran\nran\nran\n")
        // The workflow no longer has it: its snapshot does not run it.
        try fixture.edit("echo ran >> key-runs.log; echo 1", "echo 1")
        #expect(try fixture.runSteps().ran == [])
        #expect(fixture.contents("key-runs.log") == "ran\nran\nran\n")
    }

    /// The developer's loop: incremental steps up to date, a check that always runs.
    static let checkFixture = """
        {"cacheKey": [{"command": "echo ran >> key-runs.log; echo 1"}],
         "procedures": [
          {"id": "gen", "kind": "shell", "run": "\(noting("gen", "tr -d ' ' < in.txt > mid.txt; printf v1"))",
           "output": "text", "sources": ["in.txt"], "generates": ["mid.txt"]},
          {"id": "other", "kind": "shell", "run": "\(noting("other", "cp other.txt other.out"))",
           "sources": ["other.txt"], "generates": ["other.out"]},
          {"id": "check", "kind": "shell", "inputs": {"V": {"from": "gen"}},
           "run": "\(noting("check", "printf %s $V > check.out; cat mid.txt >> check.out; if [ -e grow ]; then echo more >> in.txt; fi"))"}
        ]}
        """

    @Test func aRunOfOtherStepsSettlesItsIncrementalStepsFromASnapshot() throws {
        let fixture = try WorkflowFixture(Self.checkFixture)
        defer { fixture.remove() }
        try fixture.write("in.txt", "a b\n")
        try fixture.write("other.txt", "other\n")
        #expect(try fixture.runSteps().ran == ["check", "gen", "other"])
        fixture.waitUntilStatusesAreTrusted()
        #expect(try fixture.runSteps().ran == ["check"])
        // A snapshot of the incremental steps alone.
        #expect(fixture.stateFile("uptodate") != nil)
        #expect(fixture.contents("key-runs.log") == "ran\nran\n")
        let fromSnapshot = try fixture.runSteps()
        #expect(fromSnapshot.ran == ["check"])
        #expect(
            fromSnapshot.statuses == ["gen": "cached", "other": "cached", "check": "succeeded"])
        // The value wired from the settled step is the one its record holds.
        #expect(fixture.contents("check.out") == "v1ab\n")
        // The cacheKey command ran once, for the snapshot's check: the run settled the steps
        // from the snapshot, without working out their keys again.
        #expect(fixture.contents("key-runs.log") == "ran\nran\nran\n")
        #expect(fixture.stateFile("uptodate") != nil)
        // The run's summary is what a run deciding every step prints.
        let text = try fixture.run(["--verbose"])
        #expect(text.stdout.contains("gen    cached"), "\(text.stdout)")
        #expect(text.stdout.contains("1 succeeded, 2 cached"), "\(text.stdout)")
        // --explain asks the cache why the check runs.
        let explainedRun = try fixture.runSteps(["--explain"])
        #expect(explainedRun.ran == ["check"])
        #expect(
            explained(explainedRun.events)["check"]
                == "it declares no sources, generates or depfile (not incremental)")
        // A source changed: the snapshot does not answer; its step runs. The cacheKey command
        // ran once: the check started it, and the run took what it gave.
        let runsBefore = fixture.contents("key-runs.log") ?? ""
        try fixture.write("other.txt", "changed\n")
        #expect(try fixture.runSteps().ran == ["check", "other"])
        #expect(fixture.contents("key-runs.log") == runsBefore + "ran\n")
    }

    /// The cacheKey command of a snapshot of settled steps runs while the workflow loads: what
    /// it gives is still looked at before a step is settled by the snapshot.
    @Test func aCacheKeyCommandThatChangesIsSeenPastASnapshotOfSettledSteps() throws {
        let fixture = try WorkflowFixture(
            Self.checkFixture.replacingOccurrences(
                of: "echo ran >> key-runs.log; echo 1", with: "cat tool-version"))
        defer { fixture.remove() }
        try fixture.write("in.txt", "a b\n")
        try fixture.write("other.txt", "other\n")
        try fixture.write("tool-version", "1.0\n")
        #expect(try fixture.runSteps().ran == ["check", "gen", "other"])
        fixture.waitUntilStatusesAreTrusted()
        #expect(try fixture.runSteps().ran == ["check"])
        #expect(fixture.stateFile("uptodate") != nil)
        #expect(try fixture.runSteps().ran == ["check"])
        try fixture.write("tool-version", "2.0\n")
        #expect(try fixture.runSteps().ran == ["check", "gen", "other"])
    }

    @Test func aSourceTheOtherStepsChangeIsSeenPastTheSnapshot() throws {
        let fixture = try WorkflowFixture(Self.checkFixture)
        defer { fixture.remove() }
        try fixture.write("in.txt", "a b\n")
        try fixture.write("other.txt", "other\n")
        _ = try fixture.runSteps()
        fixture.waitUntilStatusesAreTrusted()
        _ = try fixture.runSteps()
        #expect(fixture.stateFile("uptodate") != nil)
        // The check, which runs with the steps settled from the snapshot, changes gen's
        // source: the next run decides gen again and runs it.
        try fixture.write("grow", "")
        #expect(try fixture.runSteps().ran == ["check"])
        try fixture.delete("grow")
        #expect(try fixture.runSteps().ran == ["check", "gen"])
        #expect(fixture.contents("check.out") == "v1ab\nmore\n")
    }

    @Test func noSnapshotOfIncrementalStepsWhenTheCacheDecidesInstancesAsTheRunGoes() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "each", "kind": "shell", "forEach": {"in": ["x", "y"]},
               "run": "\(noting("each", "cp in.txt out-$item.txt"))",
               "sources": ["in.txt"], "generates": ["out-${item}.txt"]},
              {"id": "check", "kind": "shell", "run": "\(noting("check", "true"))"}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("in.txt", "a\n")
        #expect(try fixture.runSteps().ran == ["check", "each", "each"])
        fixture.waitUntilStatusesAreTrusted()
        #expect(try fixture.runSteps().ran == ["check"])
        #expect(fixture.stateFile("uptodate") == nil)
    }

    @Test func noSnapshotKeepsASecretACacheKeyCommandIsGiven() throws {
        let fixture = try WorkflowFixture(
            """
            {"secrets": ["TOKEN"], "env": {"TOKEN": "tok-\(UUID().uuidString)"},
             "cacheKey": [{"command": "echo 1"}],
             "procedures": [
              {"id": "a", "kind": "shell", "run": "\(noting("a", "cp in.txt a.out"))",
               "sources": ["in.txt"], "generates": ["a.out"]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("in.txt", "x\n")
        #expect(try fixture.runSteps().ran == ["a"])
        Thread.sleep(forTimeInterval: 1.2)
        #expect(try fixture.runSteps().ran == [])
        // The check would have to run the command with the secret: no snapshot is left.
        #expect(fixture.stateFile("uptodate") == nil)
    }

    @Test func aWriteThatKeepsTheModificationTimeIsStillNoticed() throws {
        let fixture = try Self.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        let url = fixture.directory.appendingPathComponent("other.txt")
        let modified = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]
        Thread.sleep(forTimeInterval: 1.2)
        _ = try fixture.runSteps()
        // Written in place, same size, same modification time: the change time still moves.
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: Data("OTHER\n".utf8))
        try handle.close()
        try FileManager.default.setAttributes(
            [.modificationDate: modified!], ofItemAtPath: url.path)
        #expect(try fixture.runSteps().ran == ["other"])
    }
}

@Suite("Incremental fields")
struct IncrementalFieldTests {

    static let cases: [ErrorCase] = [
        ErrorCase(
            name: "sources of the wrong type",
            json: workflow(#"{"id": "a", "kind": "shell", "run": "x", "sources": "a.c"}"#),
            expected: [
                #"test.json:1:69: error: /procedures/0/sources: expected an array of path patterns, found a string"#
            ]),
        ErrorCase(
            name: "a malformed pattern",
            json: workflow(
                #"{"id": "a", "kind": "shell", "run": "x", "generates": ["ok", "b[c"]}"#),
            expected: [
                #"test.json:1:78: error: /procedures/0/generates/1: "b[c" is not a usable path pattern: a '[' is not closed by ']'"#
            ]),
        ErrorCase(
            name: "a pattern naming an unknown variable",
            json: workflow(#"{"id": "a", "kind": "shell", "run": "x", "sources": ["${SRC}/a.c"]}"#),
            expected: [
                #"test.json:1:70: error: /procedures/0/sources/0: unknown variable "SRC" in ${SRC} (the workflow declares no "vars")"#
            ]),
        ErrorCase(
            name: "a depfile on a file step",
            json: workflow(
                #"{"id": "a", "kind": "file", "op": "read", "path": "x", "depfile": "x.d"}"#),
            expected: [
                #"test.json:1:72: error: /procedures/0/depfile: field "depfile" does not apply to a file procedure (it belongs to shell procedures)"#
            ]),
        ErrorCase(
            name: "sources on an http step",
            json: workflow(
                #"{"id": "a", "kind": "http", "url": "http://x", "sources": ["a"], "cache": true}"#),
            expected: [
                #"test.json:1:64: error: /procedures/0/sources: field "sources" does not apply to an http procedure (it belongs to shell and file procedures)"#
            ]),
        ErrorCase(
            name: "cache on a group",
            json: workflow(
                #"{"id": "g", "kind": "group", "cache": true, "procedures": [{"id": "a", "kind": "shell", "run": "x"}]}"#
            ),
            expected: [
                #"test.json:1:46: error: /procedures/0/cache: field "cache" does not apply to a group procedure (it belongs to shell, http and file procedures)"#
            ]),
        ErrorCase(
            name: "cache that is not a boolean",
            json: workflow(#"{"id": "a", "kind": "shell", "run": "x", "cache": "yes"}"#),
            expected: [
                #"test.json:1:67: error: /procedures/0/cache: expected true or false, found a string"#
            ]),
        ErrorCase(
            name: "an always step that says it is incremental",
            json: workflow(
                #"{"id": "a", "kind": "shell", "run": "x", "always": true, "sources": ["a"]}"#),
            expected: [
                #"test.json:1:17: error: /procedures/0/always: an "always" procedure runs every time, so it cannot be incremental: drop "always", or its "sources", "generates", "depfile" and "cache""#
            ]),
        ErrorCase(
            name: "a file two steps generate",
            json: workflow(
                #"{"id": "a", "kind": "shell", "run": "x", "generates": ["out/a.o"]}, {"id": "b", "kind": "shell", "run": "x", "generates": ["b.o", "./out//a.o"]}"#
            ),
            expected: [
                #"test.json:1:147: error: /procedures/1/generates/1: "b" generates ./out//a.o, which "a" generates too: one procedure must make each file"#
            ]),
        ErrorCase(
            name: "a file two steps generate from different working directories",
            json: workflow(
                #"{"id": "a", "kind": "shell", "run": "x", "cwd": "sub", "generates": ["a.o"]}, {"id": "b", "kind": "file", "op": "write", "path": "sub/a.o", "content": "x", "cache": true}"#
            ),
            expected: [
                #"test.json:1:95: error: /procedures/1: "b" generates sub/a.o, which "a" generates too: one procedure must make each file"#
            ]),
        ErrorCase(
            name: "a file one step lists twice",
            json: workflow(
                #"{"id": "a", "kind": "shell", "run": "x", "generates": ["gen/x", "gen/x"]}, {"id": "b", "kind": "shell", "run": "x", "generates": ["gen/y", "./gen/y", "gen/../gen/y", "*.o", "*.o"]}"#
            ),
            expected: [
                #"test.json:1:81: error: /procedures/0/generates/1: gen/x is listed twice in "generates""#,
                #"test.json:1:156: error: /procedures/1/generates/1: ./gen/y is listed twice in "generates", the first time as gen/y"#,
                #"test.json:1:167: error: /procedures/1/generates/2: gen/../gen/y is listed twice in "generates", the first time as gen/y"#,
                #"test.json:1:190: error: /procedures/1/generates/4: *.o is listed twice in "generates""#,
            ]),
        ErrorCase(
            name: "a file step that lists the file it writes",
            json: workflow(
                #"{"id": "cpy", "kind": "file", "op": "copy", "source": "src/a.c", "path": "gen/a.copy", "generates": ["./gen/a.copy"]}"#
            ),
            expected: [
                #"test.json:1:118: error: /procedures/0/generates/0: ./gen/a.copy is the file this copy procedure writes (its "path"), which it generates without being listed: drop it from "generates""#
            ]),
    ]

    @Test func pathsAboveTheWorkingDirectoryAreNotPathsInIt() {
        // From a stand-in root, sub/../../a.o was a.o; it is ../a.o, which only "c" makes too.
        let json = workflow(
            #"{"id": "a", "kind": "shell", "run": "x", "generates": ["a.o"]}, {"id": "b", "kind": "shell", "run": "x", "cwd": "sub", "generates": ["../../a.o"]}, {"id": "c", "kind": "shell", "run": "x", "generates": ["../a.o"]}"#
        )
        #expect(
            diagnostics(json) == [
                #"test.json:1:220: error: /procedures/2/generates/0: "c" generates ../a.o, which "b" generates too: one procedure must make each file"#
            ])
    }

    @Test func stepsThatNeverRunTogetherOrAreNotIncrementalMayGenerateOneFile() {
        let json = workflow(
            #"""
            {"id": "mode", "kind": "shell", "run": "x", "output": "text"},
            {"id": "pick", "kind": "branch", "on": {"from": "mode"}, "cases": [
               {"equals": "fast", "procedures": [
                 {"id": "fast", "kind": "shell", "run": "x", "generates": ["app"]}]}],
             "otherwise": [{"id": "slow", "kind": "shell", "run": "x", "generates": ["app"]}]},
            {"id": "plain", "kind": "shell", "run": "x", "generates": ["app"], "cache": false},
            {"id": "each", "kind": "shell", "run": "x", "forEach": {"in": ["a", "b"]},
             "generates": ["${item}.o"]}
            """#)
        #expect(diagnostics(json) == [])
    }

    @Test(arguments: cases)
    func problemsAreLocated(_ errorCase: ErrorCase) {
        #expect(diagnostics(errorCase.json) == errorCase.expected)
    }

    @Test func theFieldsAreDecodedWithVariablesFilledIn() throws {
        let loaded = try loadWorkflow(
            workflow(
                #"{"id": "a", "kind": "shell", "run": "cc", "sources": ["${DIR}/*.c", "x.h"], "generates": ["${DIR}/a.o"], "depfile": "${DIR}/a.d"}, {"id": "b", "kind": "http", "url": "http://x", "cache": true}, {"id": "c", "kind": "file", "op": "copy", "source": "a", "path": "b", "cache": false, "sources": ["z"]}"#,
                extra: #""vars": {"DIR": "src"}, "#)
        ).get()
        let steps = Dictionary(uniqueKeysWithValues: loaded.allSteps.map { ($0.id, $0.caching) })
        #expect(steps["a"]!.sources.map(\.text) == ["src/*.c", "x.h"])
        #expect(steps["a"]!.generates.map(\.text) == ["src/a.o"])
        #expect(steps["a"]!.depfile == "src/a.d")
        #expect(steps["a"]!.isIncremental)
        #expect(steps["b"]!.isIncremental)
        #expect(!steps["c"]!.isIncremental)
    }

    @Test func theCommandLineChecksItsCacheOptions() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(workflow(#"{"id": "a", "kind": "shell", "run": "true"}"#).utf8).write(
            to: directory.appendingPathComponent("w.json"))
        let both = try runProcflow(["run", "w.json", "--no-cache", "--force"], in: directory)
        #expect(both.status == 2)
        #expect(
            both.stderr.hasPrefix(
                "error: --no-cache cannot be used with --force: --no-cache neither reads nor writes the state"
            ))
        let prune = try runProcflow(["cache", "prune"], in: directory)
        #expect(prune.status == 2)
        #expect(prune.stderr.hasPrefix("error: prune needs --max-size"))
        let size = try runProcflow(["cache", "prune", "--max-size", "lots"], in: directory)
        #expect(size.stderr.hasPrefix("error: The value 'lots' is invalid for '--max-size <size>'"))
        let action = try runProcflow(["cache", "purge"], in: directory)
        #expect(action.stderr.hasPrefix("error: Unknown action 'purge': expected clean or prune\n"))
        #expect(CacheCommand.size("500M") == 500 << 20)
        #expect(CacheCommand.size("2GiB") == 2 << 30)
        #expect(CacheCommand.size("1.5K") == 1536)
        #expect(CacheCommand.size("100") == 100)
        #expect(CacheCommand.size("-1") == nil)
    }
}

@Suite("Incremental fields in graphs")
struct IncrementalGraphTests {
    static let json = workflow(
        #"{"id": "cc", "kind": "shell", "run": "cc", "sources": ["a.c"], "generates": ["a.o"], "depfile": "a.d"}, {"id": "get", "kind": "http", "url": "http://x", "cache": true}"#
    )

    @Test func textShowsWhatEachStepDeclares() throws {
        let graph = WorkflowGraph(try loadWorkflow(Self.json).get())
        #expect(
            GraphFormat.text.render(graph) == """
                workflow "test": 2 procedures
                cc [shell]
                  sources: a.c; generates: a.o; depfile: a.d
                get [http]
                  cache: true

                """)
    }

    @Test func jsonHasTheFieldsOnItsNodes() throws {
        let graph = WorkflowGraph(try loadWorkflow(Self.json).get())
        let text = GraphFormat.json.render(graph)
        #expect(
            text.contains(
                #"{"depfile":"a.d","generates":["a.o"],"id":"cc","kind":"shell","parent":null,"sources":["a.c"]}"#
            ))
        #expect(text.contains(#"{"cache":true,"id":"get","kind":"http","parent":null}"#))
    }
}

@Suite("Steps settled before the run")
struct SettledStepTests {
    /// Runs the pipeline fixture's workflow in this process, with its cache, after clearing
    /// its `runs.log`: the runner (to ask what it built) and the summary.
    private static func run(
        _ fixture: WorkflowFixture, reportingTo reporters: [any Reporter] = []
    ) throws -> (WorkflowRunner, RunSummary) {
        try fixture.delete("runs.log")
        let workflow = try WorkflowLoader.load(path: fixture.directory.path + "/flow.json")
        let cache = StepCache(
            directory: StateDirectory(path: fixture.directory.path + "/.procflow"),
            workflowFile: workflow.path, stepIDs: ["gen", "use", "other"])
        let runner = WorkflowRunner(
            workflow: workflow, options: .init(cache: cache), reporters: reporters)
        return (runner, runner.run())
    }

    @Test func aStepUpToDateBeforeTheRunGetsAProcedureOnlyWhenAStepTakesItsOutput() throws {
        let fixture = try IncrementalRunTests.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        try fixture.write("other.txt", "changed\n")
        let reporter = CollectingReporter()
        let (runner, summary) = try Self.run(fixture, reportingTo: [reporter])
        #expect(summary.result == .succeeded)
        #expect(fixture.ran == ["other"])
        #expect(summary.rows.map(\.status) == [.cached, .cached, .succeeded])
        // `use` takes data from `gen`: gen stands in the graph, settled; nothing takes use's.
        #expect(runner.builtProcedure(for: "gen"))
        #expect(!runner.builtProcedure(for: "use"))
        #expect(runner.builtProcedure(for: "other"))
        let cached = reporter.reported.compactMap { event -> String? in
            guard case .stepCached = event.kind else { return nil }
            return event.step
        }
        #expect(Set(cached) == ["gen", "use"])
    }

    @Test func aStepFoundUpToDateAsTheRunGoesNeverMakesItsCommandsProcedure() throws {
        let fixture = try IncrementalRunTests.pipelineFixture()
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        // gen runs again and makes the same mid.txt and output: use, decided once gen has
        // ended, is up to date.
        try fixture.write("in.txt", "a  b  c\n")
        let (runner, summary) = try Self.run(fixture)
        #expect(summary.result == .succeeded)
        #expect(fixture.ran == ["gen"])
        #expect(summary.rows.map(\.status) == [.succeeded, .cached, .cached])
        #expect(runner.builtProcedure(for: "use"))
        #expect(runner.madeWork(for: "gen"))
        #expect(!runner.madeWork(for: "use"))
    }

    /// A step that ran stays in the run's graph to the run's end, but lets go of the procedure
    /// that ran its command once it has ended.
    @Test func aStepThatRanLetsGoOfItsCommandsProcedure() throws {
        let fixture = try IncrementalRunTests.pipelineFixture()
        defer { fixture.remove() }
        try fixture.write("runs.log", "")
        let (runner, summary) = try Self.run(fixture)
        #expect(summary.result == .succeeded)
        #expect(Set(fixture.ran) == ["gen", "use", "other"])
        for id in ["gen", "use", "other"] {
            #expect(runner.madeWork(for: id))
            #expect(runner.childrenHeld(by: id) == 0)
        }
    }
}

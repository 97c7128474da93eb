import Foundation
import Testing

@testable import Procflow

/// `procflow run --watch`, run with the real binary: which steps each change runs again, a
/// change that stops a running step, and Ctrl-C.
@Suite("Watch", .serialized)
struct WatchTests {

    /// The lines of `runs.log` from `start` on.
    static func ran(_ fixture: WorkflowFixture, from start: Int) -> [String] {
        Array(fixture.ran.dropFirst(start))
    }

    /// Waits until `runs.log` has `count` lines past `start`, then a moment more to see that
    /// nothing else runs; returns those lines, sorted.
    static func waitForRuns(
        _ fixture: WorkflowFixture, from start: Int, count: Int,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> [String] {
        #expect(
            eventually(timeout: 30) { ran(fixture, from: start).count >= count },
            "\(ran(fixture, from: start))", sourceLocation: sourceLocation)
        Thread.sleep(forTimeInterval: 1)
        return ran(fixture, from: start).sorted()
    }

    /// Sends `signal` to the watch and returns its output once it has exited with 128 +
    /// `signal`.
    static func end(
        _ watch: RunningProcflow, with signal: Int32,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> String {
        kill(watch.process.processIdentifier, signal)
        let output = watch.finish(timeout: 30)
        #expect(
            watch.process.terminationStatus == 128 + signal, "\(output)",
            sourceLocation: sourceLocation)
        return output
    }

    static let pipeline = """
        {"procedures": [
          {"id": "cc", "kind": "shell", "forEach": {"in": ["a", "b"]},
           "run": "echo cc-$item >> runs.log; cp src/$item.c $item.o",
           "sources": ["src/${item}.c"], "generates": ["${item}.o"]},
          {"id": "link", "kind": "shell", "dependsOn": ["cc"],
           "run": "echo link >> runs.log; cat a.o b.o > app",
           "sources": ["a.o", "b.o"], "generates": ["app"]},
          {"id": "other", "kind": "shell", "run": "echo other >> runs.log"}
        ]}
        """

    @Test func eachEditRunsAgainExactlyTheStepsItAffects() throws {
        let fixture = try WorkflowFixture(Self.pipeline)
        defer { fixture.remove() }
        try fixture.write("src/a.c", "a1\n")
        try fixture.write("src/b.c", "b1\n")
        let watch = try RunningProcflow(fixture, arguments: ["--watch"])
        #expect(
            Self.waitForRuns(fixture, from: 0, count: 4) == ["cc-a", "cc-b", "link", "other"])
        try fixture.write("src/a.c", "a2\n")
        // The instance whose source changed, and what is downstream of it; not "other".
        #expect(Self.waitForRuns(fixture, from: 4, count: 2) == ["cc-a", "link"])
        #expect(fixture.contents("app") == "a2\nb1\n")
        try fixture.write("src/b.c", "b2\n")
        #expect(Self.waitForRuns(fixture, from: 6, count: 2) == ["cc-b", "link"])
        #expect(fixture.contents("app") == "a2\nb2\n")
        // Neither a file no step reads, nor a source written with the content it had, is a
        // change.
        try fixture.write("notes.txt", "x\n")
        try fixture.write("src/a.c", "a2\n")
        Thread.sleep(forTimeInterval: 1)
        #expect(Self.ran(fixture, from: 8) == [])
        // An edit to the workflow loads it again and runs everything, the cache deciding.
        try fixture.edit("echo other", "echo other2")
        #expect(Self.waitForRuns(fixture, from: 8, count: 1) == ["other2"])
        let output = Self.end(watch, with: SIGINT)
        #expect(output.contains("procflow: src/a.c changed, a source of cc\n"))
        #expect(output.contains("procflow: running cc, link\n"))
        #expect(output.contains("procflow: flow.json changed: loading the workflow again\n"))
    }

    @Test func aChangeToARunningStepsSourceStopsItAndCtrlCLeavesNoProcessBehind() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "slow", "kind": "shell", "sources": ["in.txt"],
               "run": "echo slow >> runs.log; echo $$ > pid$(wc -l < runs.log | tr -d ' '); sh -c 'sleep 300 & sleep 300'"}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("in.txt", "1\n")
        let watch = try RunningProcflow(fixture, arguments: ["--watch", "--grace-period", "5"])
        func group(_ number: Int) -> pid_t? {
            fixture.contents("pid\(number)").flatMap {
                pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        #expect(eventually(timeout: 30) { group(1) != nil })
        usleep(300_000)
        let first = try #require(group(1))
        try fixture.write("in.txt", "2\n")
        #expect(eventually(timeout: 30) { group(2) != nil }, "the step did not run again")
        #expect(!ProcessGroups.isAlive(first), "the stopped step's processes outlived it")
        usleep(300_000)
        let second = try #require(group(2))
        #expect(ProcessGroups.isAlive(second))
        let output = Self.end(watch, with: SIGINT)
        #expect(output.contains("procflow: in.txt changed: stopping the run\n"))
        #expect(eventually(timeout: 10) { !ProcessGroups.isAlive(second) })
    }

    @Test func ctrlCWhileWaitingEndsTheWatch() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "echo a >> runs.log"}]}"#)
        defer { fixture.remove() }
        let watch = try RunningProcflow(fixture, arguments: ["--watch"])
        #expect(Self.waitForRuns(fixture, from: 0, count: 1) == ["a"])
        let output = Self.end(watch, with: SIGTERM)
        #expect(output.contains("procflow: watching for changes (Ctrl-C to stop)\n"))
    }

    @Test func aBrokenWorkflowIsWaitedOnUntilItIsFixed() throws {
        let fixture = try WorkflowFixture(#"{"procedures": [{"id": "a", "kind": "shell"}]}"#)
        defer { fixture.remove() }
        let watch = try RunningProcflow(fixture, arguments: ["--watch"])
        Thread.sleep(forTimeInterval: 1)
        #expect(watch.process.isRunning)
        try fixture.write(
            fixture.file,
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "echo a >> runs.log"}]}"#)
        #expect(Self.waitForRuns(fixture, from: 0, count: 1) == ["a"])
        let output = Self.end(watch, with: SIGINT)
        #expect(output.contains("flow.json:1:17: error: /procedures/0: missing field \"run\""))
        #expect(output.contains("procflow: waiting for the workflow to be fixed (Ctrl-C to stop)"))
    }

    @Test func watchingCannotBeAskedWithADryRunOrOfAMissingFile() throws {
        let fixture = try WorkflowFixture(#"{"procedures": []}"#)
        defer { fixture.remove() }
        let dry = try fixture.run(["--watch", "--dry-run"])
        #expect(dry.status == 2)
        #expect(dry.stderr.contains("--watch cannot be used with --dry-run"))
        let missing = try runProcflow(["run", "nope.json", "--watch"], in: fixture.directory)
        #expect(missing.status == 2)
    }
}

@Suite("Watch plans")
struct WatchPlanTests {
    static let json = """
        {"procedures": [
          {"id": "gen", "kind": "shell", "run": "x", "sources": ["in/*.txt"], "generates": ["mid.txt"]},
          {"id": "use", "kind": "shell", "run": "x", "sources": ["mid.txt", "conf/**"], "dependsOn": ["gen"]},
          {"id": "group", "kind": "group", "procedures": [
            {"id": "inner", "kind": "shell", "run": "x", "sources": ["src/${item}.c"], "forEach": {"in": ["a"]}}
          ]},
          {"id": "after", "kind": "shell", "run": "x", "dependsOn": ["group"]},
          {"id": "copy", "kind": "file", "op": "copy", "source": "a.txt", "path": "b.txt"}
        ]}
        """

    @Test func changedFilesMapToTheStepsThatDeclareThemAndWhatIsDownstream() throws {
        let workflow = try loadWorkflow(Self.json).get()
        let plan = WatchPlan(workflow, directory: "/w", stateDirectory: "/w/.procflow")
        func steps(_ paths: String...) -> [String] {
            plan.change(for: paths) { _, _ in true }.steps
        }
        #expect(steps("/w/in/x.txt") == ["gen", "use"])
        #expect(steps("/w/conf/deep/y") == ["use"])
        // What a step generates is the run's own doing.
        #expect(steps("/w/mid.txt") == [])
        #expect(steps("/w/src/zz.c") == ["inner", "after"])
        #expect(steps("/w/a.txt") == ["copy"])
        #expect(steps("/w/in/x.md", "/w/.procflow/x", "/elsewhere/in/x.txt") == [])
        #expect(plan.change(for: ["/w/in/x.txt"]) { _, _ in false }.isEmpty)
    }

    @Test func rootsAreExistingDirectoriesNoneInsideAnother() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for folder in ["in", "conf/deep"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let workflow = try loadWorkflow(Self.json).get()
        let plan = WatchPlan(workflow, directory: root.path, stateDirectory: "/nowhere")
        let workflowDirectory = FileManager.default.currentDirectoryPath
        #expect(Set(plan.roots) == [root.path, workflowDirectory])
        let elsewhere = WatchPlan(
            try loadWorkflow(
                #"{"procedures": [{"id": "a", "kind": "shell", "run": "x", "sources": ["conf/deep/*", "in/a"]}]}"#
            ).get(), directory: root.path, stateDirectory: "/nowhere")
        #expect(
            Set(elsewhere.roots) == [
                root.path + "/conf/deep", root.path + "/in", workflowDirectory,
            ])
    }
}

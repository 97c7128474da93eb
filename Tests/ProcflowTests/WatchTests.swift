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

    /// The line the watch prints each time it has run what changed and waits again.
    static let idleLine = "procflow: watching for changes (Ctrl-C to stop)\n"

    /// How many times the watch has gone idle so far.
    static func idles(_ watch: RunningProcflow) -> Int {
        watch.output.components(separatedBy: idleLine).count - 1
    }

    /// Does `change`, then waits until the watch has run what it called for and gone idle
    /// again; returns the lines of `runs.log` past `start`, sorted: what ran for the change,
    /// and nothing else.
    static func runs(
        _ fixture: WorkflowFixture, _ watch: RunningProcflow, from start: Int,
        after change: () throws -> Void,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) rethrows -> [String] {
        let idle = idles(watch)
        try change()
        #expect(
            eventually(timeout: 30) { idles(watch) > idle }, "\(watch.output)",
            sourceLocation: sourceLocation)
        return ran(fixture, from: start).sorted()
    }

    /// Starts a watch of `fixture` with `arguments`; returns it once its first run is over.
    static func watch(_ fixture: WorkflowFixture, _ arguments: [String] = []) throws
        -> RunningProcflow
    {
        let watch = try RunningProcflow(fixture, arguments: ["--watch"] + arguments)
        #expect(eventually(timeout: 30) { idles(watch) > 0 }, "\(watch.output)")
        return watch
    }

    /// Sends `signal` to the watch and returns its output once it has exited with 128 +
    /// `signal`.
    static func end(
        _ watch: RunningProcflow, with signal: Int32,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> String {
        watch.signal(signal)
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
        let watch = try Self.watch(fixture)
        #expect(Self.ran(fixture, from: 0).sorted() == ["cc-a", "cc-b", "link", "other"])
        // The instance whose source changed, and what is downstream of it; not "other".
        #expect(
            try Self.runs(fixture, watch, from: 4) { try fixture.write("src/a.c", "a2\n") }
                == ["cc-a", "link"])
        #expect(fixture.contents("app") == "a2\nb1\n")
        #expect(
            try Self.runs(fixture, watch, from: 6) { try fixture.write("src/b.c", "b2\n") }
                == ["cc-b", "link"])
        #expect(fixture.contents("app") == "a2\nb2\n")
        // Neither a file no step reads, nor a source written with the content it had, is a
        // change: after them, an edit to the workflow (which loads it again and runs
        // everything, the cache deciding) runs only what it changed.
        let afterEdit = try Self.runs(fixture, watch, from: 8) {
            try fixture.write("notes.txt", "x\n")
            try fixture.write("src/a.c", "a2\n")
            try fixture.edit("echo other", "echo other2")
        }
        #expect(afterEdit == ["other2"])
        let output = Self.end(watch, with: SIGINT)
        #expect(output.contains("procflow: src/a.c changed, a source of cc\n"))
        #expect(output.contains("procflow: running cc, link\n"))
        #expect(output.contains("procflow: flow.json changed: loading the workflow again\n"))
    }

    @Test func aChangeToARunningStepsSourceStopsItAndCtrlCLeavesNoProcessBehind() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "fast", "kind": "shell", "run": "echo fast >> runs.log"},
              {"id": "slow", "kind": "shell", "sources": ["in.txt"],
               "run": "echo slow >> slow.log; echo $$ > pid$(wc -l < slow.log | tr -d ' '); sh -c 'sleep 300 & sleep 300'"}
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
        // The step's shell, its sh and the two sleeps: all started.
        func started(_ group: pid_t) -> Bool {
            ProcessTable.read().entries.filter { $0.group == group && !$0.isZombie }.count >= 4
        }
        #expect(eventually(timeout: 30) { group(1).map(started) == true })
        let first = try #require(group(1))
        try fixture.write("in.txt", "2\n")
        #expect(eventually(timeout: 30) { group(2) != nil }, "the step did not run again")
        #expect(!ProcessGroups.isAlive(first), "the stopped step's processes outlived it")
        #expect(eventually(timeout: 30) { group(2).map(started) == true })
        let second = try #require(group(2))
        #expect(ProcessGroups.isAlive(second))
        let output = Self.end(watch, with: SIGINT)
        #expect(output.contains("procflow: in.txt changed: stopping the run\n"))
        #expect(output.contains("procflow: running slow again\n"))
        #expect(eventually(timeout: 10) { !ProcessGroups.isAlive(second) })
        // What the stopped run had finished did not run again.
        #expect(fixture.ran == ["fast"])
    }

    @Test func aSourceIsWeighedForEachStepThatReadsIt() throws {
        // a fails unless x.h holds 0: after x.h becomes 1, a's last success read 0 and b's 1.
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "sources": ["x.h"], "run": "grep -q 0 x.h && echo a >> runs.log"},
              {"id": "b", "kind": "shell", "sources": ["x.h"], "run": "echo b >> runs.log"}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("x.h", "0\n")
        let watch = try Self.watch(fixture)
        #expect(Self.ran(fixture, from: 0).sorted() == ["a", "b"])
        #expect(try Self.runs(fixture, watch, from: 2) { try fixture.write("x.h", "1\n") } == ["b"])
        // Loaded again, the session knows x.h only from the steps' records.
        _ = try Self.runs(fixture, watch, from: 3) { try fixture.edit("echo a", "echo  a") }
        _ = try Self.runs(fixture, watch, from: 3) { try fixture.write("x.h", "0\n") }
        let output = Self.end(watch, with: SIGINT)
        // What b read is not there any more, though it is what a read (b's first run is put
        // back from the cache, without running).
        #expect(output.contains("procflow: x.h changed, a source of b\nprocflow: running b\n"))
    }

    @Test func targetsStayTheTargetsOfEveryRun() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "echo a >> runs.log", "sources": ["a.txt"]},
              {"id": "b", "kind": "shell", "run": "echo b >> runs.log", "sources": ["b.txt"]},
              {"id": "all", "kind": "shell", "run": "echo all >> runs.log", "dependsOn": ["a", "b"]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("a.txt", "1\n")
        try fixture.write("b.txt", "1\n")
        let watch = try Self.watch(fixture, ["a"])
        #expect(Self.ran(fixture, from: 0) == ["a"])
        #expect(
            try Self.runs(fixture, watch, from: 1) { try fixture.write("a.txt", "2\n") } == ["a"])
        // b is no part of target a: its source is not watched. After it, a change to a
        // runs a alone.
        let afterB = try Self.runs(fixture, watch, from: 2) {
            try fixture.write("b.txt", "2\n")
            try fixture.write("a.txt", "3\n")
        }
        #expect(afterB == ["a"])
        _ = Self.end(watch, with: SIGINT)
    }

    @Test func anEditToAHeaderADepfileNamedRunsTheStepAgain() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "cc", "kind": "shell", "sources": ["main.c"], "depfile": "main.d",
               "run": "echo cc >> runs.log; printf 'main.o: main.c inc/h.h\\n' > main.d; cat main.c inc/h.h > main.o",
               "generates": ["main.o"]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("main.c", "int main;\n")
        try fixture.write("inc/h.h", "// 1\n")
        let watch = try Self.watch(fixture)
        #expect(Self.ran(fixture, from: 0) == ["cc"])
        #expect(
            try Self.runs(fixture, watch, from: 1) { try fixture.write("inc/h.h", "// 2\n") }
                == ["cc"])
        #expect(fixture.contents("main.o") == "int main;\n// 2\n")
        let output = Self.end(watch, with: SIGINT)
        #expect(output.contains("procflow: inc/h.h changed, a source of cc\n"))
    }

    @Test func aFileMadeAndRemovedRunsNothingAndANewSourceRunsItsStep() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "cat", "kind": "shell", "sources": ["src/**/*.c"],
               "run": "echo cat >> runs.log; cat $(find src -name '*.c' | sort) > all"}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("src/a.c", "a\n")
        let watch = try Self.watch(fixture)
        #expect(Self.ran(fixture, from: 0) == ["cat"])
        // A file made and removed is no change: after it, a new file the pattern matches runs
        // the step once.
        let temporary = fixture.directory.appendingPathComponent("src/.#b.c").path
        let afterDraft = try Self.runs(fixture, watch, from: 1) {
            try fixture.write("src/.#b.c", "draft\n")
            try FileManager.default.removeItem(atPath: temporary)
            try fixture.write("src/b.c", "b\n")
        }
        #expect(afterDraft == ["cat"])
        #expect(fixture.contents("all") == "a\nb\n")
        // One in a directory made just before it.
        #expect(
            try Self.runs(fixture, watch, from: 2) {
                try fixture.write("src/new/deeper/c.c", "c\n")
            } == ["cat"])
        #expect(fixture.contents("all") == "a\nb\nc\n")
        _ = Self.end(watch, with: SIGINT)
    }

    @Test func ctrlCWhileWaitingEndsTheWatch() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "echo a >> runs.log"}]}"#)
        defer { fixture.remove() }
        let watch = try Self.watch(fixture)
        #expect(Self.ran(fixture, from: 0) == ["a"])
        let output = Self.end(watch, with: SIGTERM)
        #expect(output.contains("procflow: watching for changes (Ctrl-C to stop)\n"))
    }

    @Test func aBrokenWorkflowIsWaitedOnUntilItIsFixed() throws {
        let fixture = try WorkflowFixture(#"{"procedures": [{"id": "a", "kind": "shell"}]}"#)
        defer { fixture.remove() }
        let watch = try RunningProcflow(fixture, arguments: ["--watch"])
        #expect(
            eventually(timeout: 30) {
                watch.output.contains(
                    "procflow: waiting for the workflow to be fixed (Ctrl-C to stop)")
            }, "\(watch.output)")
        #expect(watch.process.isRunning)
        let fixed = try Self.runs(fixture, watch, from: 0) {
            try fixture.write(
                fixture.file,
                #"{"procedures": [{"id": "a", "kind": "shell", "run": "echo a >> runs.log"}]}"#)
        }
        #expect(fixed == ["a"])
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
        #expect(steps("/w/src/a.c") == ["inner", "after"])
        #expect(steps("/w/src/zz.c") == [])
        #expect(steps("/w/a.txt") == ["copy"])
        #expect(steps("/w/in/x.md", "/w/.procflow/x", "/elsewhere/in/x.txt") == [])
        #expect(plan.change(for: ["/w/in/x.txt"]) { _, _ in false }.isEmpty)
    }

    @Test func forEachInstancesAreWatchedWithTheirItemsAndDirectories() throws {
        let workflow = try loadWorkflow(
            """
            {"procedures": [
              {"id": "list", "kind": "shell", "run": "x", "output": "json"},
              {"id": "each", "kind": "shell", "run": "x", "cwd": "pkg/${item}",
               "sources": ["src/*.c", "${item}.h"], "forEach": {"in": ["a", "b"]}},
              {"id": "dyn", "kind": "shell", "run": "x", "cwd": "mod/${m}",
               "sources": ["${m}.c"], "forEach": {"from": "list", "as": "m"}},
              {"id": "sum", "kind": "shell", "run": "x", "dependsOn": ["each"]}
            ]}
            """
        ).get()
        let plan = WatchPlan(workflow, directory: "/w", stateDirectory: "/w/.procflow")
        func steps(_ path: String) -> [String] {
            plan.change(for: [path]) { _, _ in true }.steps
        }
        #expect(steps("/w/pkg/a/src/x.c") == ["each", "sum"])
        #expect(steps("/w/pkg/b/b.h") == ["each", "sum"])
        // Not an item's directory, or another item's header.
        #expect(steps("/w/pkg/c/src/x.c") == [])
        #expect(steps("/w/pkg/a/b.h") == [])
        // Items from a step: each reference stands for any one name.
        #expect(steps("/w/mod/q/q.c") == ["dyn"])
        #expect(steps("/w/mod/q/deeper/q.c") == [])
    }

    @Test func filesDepfilesNamedAreLearntAndReplacedByTheNextRun() throws {
        let workflow = try loadWorkflow(
            #"{"procedures": [{"id": "cc", "kind": "shell", "run": "x", "sources": ["a.c"], "forEach": {"in": [1]}}]}"#
        ).get()
        var plan = WatchPlan(workflow, directory: "/w", stateDirectory: "/w/.procflow")
        func steps(_ path: String) -> [String] {
            plan.change(for: [path]) { _, _ in true }.steps
        }
        #expect(steps("/w/inc/h.h") == [])
        plan.learn([("cc[0]", ["/w/inc/h.h", "/w/build/..//inc/k.h"]), ("gone", ["/w/inc/g.h"])])
        #expect(steps("/w/inc/h.h") == ["cc"])
        // As the watcher names it.
        #expect(steps("/w/inc/k.h") == ["cc"])
        #expect(steps("/w/inc/g.h") == [])
        plan.learn([])
        #expect(steps("/w/inc/h.h") == [])
    }

    @Test func theReportsARunWritesAreNoChange() throws {
        let workflow = try loadWorkflow(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "x", "sources": ["out/*"]}]}"#
        ).get()
        let plan = WatchPlan(
            workflow, directory: "/w", stateDirectory: "/w/.procflow",
            ownFiles: ["/w/out/summary.json"])
        #expect(plan.change(for: ["/w/out/summary.json"]) { _, _ in true }.isEmpty)
        #expect(plan.change(for: ["/w/out/data.txt"]) { _, _ in true }.steps == ["a"])
    }

    @Test func aStoppedRunLeavesTheStepsThatDidNotFinish() {
        func row(_ id: String, _ path: [String], _ status: StepStatus) -> RunSummary.Row {
            RunSummary.Row(id: id, path: path, status: status, duration: nil, reason: nil)
        }
        let summary = RunSummary(
            name: "w",
            rows: [
                row("done", [], .succeeded), row("kept", [], .cached),
                row("group", [], .cancelled), row("inner", ["group"], .cancelled),
                row("inner2", ["group"], .succeeded),
                row("each", [], .cancelled), row("each[0]", ["each"], .succeeded),
                row("each[1]", ["each"], .cancelled), row("each[2]", ["each"], .cancelled),
                row("later", [], .skipped), row("failed", [], .failed),
            ], result: .interrupted(SIGTERM), duration: 1)
        #expect(WatchSession.unfinished(summary) == ["inner", "each", "later", "failed"])
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

import Foundation
import ProcedureKit
import Testing

@testable import Procflow

/// Reports to a check of the runner's procedures as each step starts.
private final class StartWatcher: Reporter, Sendable {
    private let runner = Locked<WorkflowRunner?>(nil)
    private let seen = Locked([String: [String: Bool]]())
    /// The steps whose procedures are looked for at each start.
    let watched: [String]

    init(watching watched: [String]) {
        self.watched = watched
    }

    func watch(_ runner: WorkflowRunner) {
        self.runner.withLock { $0 = runner }
    }

    func report(_ event: RunEvent) {
        guard case .stepStarted = event.kind, let step = event.step,
            let runner = runner.withLock({ $0 })
        else { return }
        let built = Dictionary(
            uniqueKeysWithValues: watched.map { ($0, runner.builtProcedure(for: $0)) })
        seen.withLock { $0[step] = built }
    }

    /// For each of the watched steps, whether it had a procedure when `step` started.
    func built(when step: String) -> [String: Bool]? {
        seen.withLock { $0[step] }
    }
}

/// Loads `json` from a fixture and runs it in this process: the runner and the summary.
private func run(
    _ fixture: WorkflowFixture, reportingTo reporters: [any Reporter] = [],
    before: (WorkflowRunner) -> Void = { _ in }
) throws -> (WorkflowRunner, RunSummary) {
    let workflow = try WorkflowLoader.load(path: fixture.directory.path + "/" + fixture.file)
    // Built as the run goes however few they are: a run does so from thousands.
    var options = WorkflowRunner.Options()
    options.deferringFrom = 1
    let runner = WorkflowRunner(workflow: workflow, options: options, reporters: reporters)
    before(runner)
    return (runner, runner.run())
}

/// The steps a run builds as it goes: once what they wait for has started.
@Suite("Steps built as the run goes")
struct DeferredStepsTests {

    @Test func aStepIsBuiltOnlyOnceEveryStepItWaitsForHasStarted() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "true"},
              {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["a"]},
              {"id": "c", "kind": "shell", "run": "printf c", "output": "text", "dependsOn": ["b"]},
              {"id": "d", "kind": "shell", "run": "test \\"$C\\" = c", "inputs": {"C": {"from": "c"}}}
            ]}
            """)
        defer { fixture.remove() }
        let watcher = StartWatcher(watching: ["b", "c", "d"])
        let (runner, summary) = try run(fixture, reportingTo: [watcher]) { watcher.watch($0) }
        #expect(summary.result == .succeeded)
        #expect(summary.rows.map(\.status) == [.succeeded, .succeeded, .succeeded, .succeeded])
        // As a started, b and c were not built: b is built once a has started (after a's
        // start is reported), c once b has.
        #expect(watcher.built(when: "a") == ["b": false, "c": false, "d": false])
        #expect(watcher.built(when: "b")?["d"] == false)
        for id in ["a", "b", "c", "d"] { #expect(runner.builtProcedure(for: id)) }
    }

    @Test func aStepBuiltAsTheRunGoesIsLetGoOfOnceItAndWhatWaitsForItHaveEnded() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "true"},
              {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["a"]},
              {"id": "c", "kind": "shell", "run": "true", "dependsOn": ["b"]}
            ]}
            """)
        defer { fixture.remove() }
        let (runner, summary) = try run(fixture)
        #expect(summary.result == .succeeded)
        // a waits for nothing: built before the run, it stays in the graph.
        #expect(runner.holdsProcedure(for: "a"))
        #expect(!runner.holdsProcedure(for: "b"))
        #expect(!runner.holdsProcedure(for: "c"))
        #expect(runner.builtProcedure(for: "b") && runner.madeWork(for: "b"))
    }

    @Test func aGroupLetsGoOfTheStepsBuiltAsTheRunGoesAsTheyEnd() throws {
        let steps = (0..<300).map {
            #"{"id": "s\#($0)", "kind": "file", "op": "write", "path": "out/\#($0).txt", "content": "x", "dependsOn": ["first"]}"#
        }
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "first", "kind": "shell", "run": "mkdir -p out"},
              {"id": "g", "kind": "group", "procedures": [\(steps.joined(separator: ",\n"))]}
            ]}
            """)
        defer { fixture.remove() }
        let (runner, summary) = try run(fixture)
        #expect(summary.result == .succeeded)
        #expect(summary.rows.filter { $0.status == .succeeded }.count == 302)
        // Let go of as they end, a few dozen at a time: what is left is the last few.
        #expect(runner.childrenHeld(by: "g") < 64)
    }

    @Test func aGroupEndsOnlyOnceTheStepsItBuildsAsTheRunGoesHaveEnded() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "g", "kind": "group", "procedures": [
                {"id": "a", "kind": "shell", "run": "true"},
                {"id": "b", "kind": "shell", "run": "sleep 0.2 && printf b > b.txt", "dependsOn": ["a"]}
              ]},
              {"id": "after", "kind": "shell", "run": "test -f b.txt", "dependsOn": ["g"]}
            ]}
            """)
        defer { fixture.remove() }
        let (_, summary) = try run(fixture)
        #expect(summary.result == .succeeded)
        #expect(summary.rows.map(\.status) == [.succeeded, .succeeded, .succeeded, .succeeded])
    }

    @Test func aFailureSkipsTheStepsBuiltAfterItAsItSkippedThemBefore() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "exit 3", "output": "text"},
              {"id": "b", "kind": "shell", "run": "printf b", "output": "text", "dependsOn": ["a"]},
              {"id": "c", "kind": "shell", "run": "cat", "input": {"from": "b"}}
            ]}
            """)
        defer { fixture.remove() }
        let (_, summary) = try run(fixture)
        #expect(summary.result == .failed)
        #expect(summary.rows.map(\.status) == [.failed, .skipped, .skipped])
        #expect(summary.rows[1].reason?.contains("a failed") == true)
    }

    /// The command, on a workflow large enough to build its steps as it goes: every step runs,
    /// and the data wired along a chain of them arrives.
    @Test func theCommandBuildsTheStepsOfALargeWorkflowAsItGoes() throws {
        let count = DeferredSteps.worthwhileCount
        var steps = [
            #"{"id": "first", "kind": "shell", "run": "mkdir -p out && printf 0", "output": "text"}"#
        ]
        for n in 0..<count {
            steps.append(
                #"{"id": "w\#(n)", "kind": "file", "op": "write", "path": "out/\#(n).txt", "content": "x", "dependsOn": ["first"]}"#
            )
        }
        // A chain passing a value along: each takes the one before's output.
        for n in 1...3 {
            steps.append(
                #"{"id": "c\#(n)", "kind": "shell", "run": "printf $((V + 1))", "output": "text", "inputs": {"V": {"from": "\#(n == 1 ? "first" : "c\(n - 1)")"}}}"#
            )
        }
        steps.append(
            #"{"id": "check", "kind": "shell", "run": "test \"$V\" = 3", "inputs": {"V": {"from": "c3"}}}"#
        )
        let fixture = try WorkflowFixture(
            #"{"procedures": [\#(steps.joined(separator: ",\n"))]}"#)
        defer { fixture.remove() }
        let result = try fixture.run()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\(count + 5) succeeded"), "\(result.stdout.suffix(300))")
        let written = try FileManager.default.contentsOfDirectory(
            atPath: fixture.directory.path + "/out")
        #expect(written.count == count)
    }

    // MARK: - Which steps

    private func select(_ json: String, atLeast: Int = 1) throws -> DeferredSteps.Selection? {
        let fixture = try WorkflowFixture(json)
        defer { fixture.remove() }
        let workflow = try WorkflowLoader.load(path: fixture.directory.path + "/" + fixture.file)
        return DeferredSteps.select(
            workflow, nestedSteps: workflow.nestedSteps, leftOut: [], settled: [:],
            atLeast: atLeast)
    }

    @Test func aRunDefersStepsOnlyWhenItCanDeferMany() throws {
        let workflow = """
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "true"},
              {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["a"]},
              {"id": "c", "kind": "shell", "run": "true", "dependsOn": ["a"]}
            ]}
            """
        #expect(try select(workflow, atLeast: 2)?.prerequisites.count == 2)
        #expect(try select(workflow, atLeast: 3) == nil)
        #expect(try select(workflow, atLeast: DeferredSteps.worthwhileCount) == nil)
        // A run of the command builds every step of so small a workflow before it starts.
        let fixture = try WorkflowFixture(workflow)
        defer { fixture.remove() }
        let loaded = try WorkflowLoader.load(path: fixture.directory.path + "/" + fixture.file)
        let runner = WorkflowRunner(workflow: loaded, options: .init(), reporters: [])
        #expect(runner.run().result == .succeeded)
        #expect(runner.holdsProcedure(for: "b") && runner.holdsProcedure(for: "c"))
    }

    @Test func whatAStepBuiltBeforeTheRunWaitsForIsBuiltBeforeItToo() throws {
        // b is waited for by a step of a branch's case, built when the branch chooses; c by
        // d, which a group gives as its output; e by nothing.
        let selection = try #require(
            try select(
                """
                {"procedures": [
                  {"id": "a", "kind": "shell", "run": "printf x", "output": "text"},
                  {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["a"]},
                  {"id": "pick", "kind": "branch", "on": {"from": "a"}, "cases": [
                    {"equals": "x", "procedures": [{"id": "x", "kind": "shell", "run": "true", "dependsOn": ["b"]}]}
                  ]},
                  {"id": "c", "kind": "shell", "run": "true", "dependsOn": ["a"]},
                  {"id": "g", "kind": "group", "outputFrom": "d", "procedures": [
                    {"id": "d", "kind": "shell", "run": "printf d", "output": "text", "dependsOn": ["c"]}
                  ]},
                  {"id": "e", "kind": "shell", "run": "true", "dependsOn": ["b", "c"]}
                ]}
                """))
        #expect(Set(selection.prerequisites.keys) == ["e"])
        #expect(selection.dependents == ["b": ["e"], "c": ["e"]])
    }

    /// The deferred steps' prerequisites are one list, each step's a range of it, in file
    /// order: not a list a step and a dictionary of their dependents.
    @Test func aSelectionKeepsThePrerequisitesOfItsStepsInOneList() throws {
        let selection = try #require(
            try select(
                """
                {"procedures": [
                  {"id": "a", "kind": "shell", "run": "printf a", "output": "text"},
                  {"id": "z", "kind": "shell", "run": "true"},
                  {"id": "c", "kind": "shell", "run": "true", "dependsOn": ["z", "a"]},
                  {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["a"]},
                  {"id": "d", "kind": "shell", "run": "true", "dependsOn": ["b"],
                   "inputs": {"X": {"from": "a"}}}
                ]}
                """))
        #expect(selection.prerequisites.keys == ["c", "b", "d"])
        #expect(selection.waitedFor == ["z", "a", "a", "b", "a"])
        #expect(Array(selection.prerequisites(at: 2)) == ["b", "a"])
        #expect(selection.dependents == ["z": ["c"], "a": ["c", "b", "d"], "b": ["d"]])
    }

    @Test func aGroupThatMayNotStartWithItsParentBuildsItsStepsBeforeTheRun() throws {
        let selection = try #require(
            try select(
                """
                {"procedures": [
                  {"id": "a", "kind": "shell", "run": "true"},
                  {"id": "g", "kind": "group", "when": {"env": "HOME"}, "procedures": [
                    {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["a"]}
                  ]},
                  {"id": "h", "kind": "group", "procedures": [
                    {"id": "c", "kind": "shell", "run": "true", "dependsOn": ["a"]}
                  ]},
                  {"id": "limited", "kind": "group", "maxConcurrency": 1, "procedures": [
                    {"id": "d", "kind": "shell", "run": "true", "dependsOn": ["a"]}
                  ]}
                ]}
                """))
        #expect(Set(selection.prerequisites.keys) == ["c"])
    }

    @Test func aRunWithAnAlwaysStepOrAServiceDefersNothing() throws {
        #expect(
            try select(
                """
                {"procedures": [
                  {"id": "a", "kind": "shell", "run": "true"},
                  {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["a"]},
                  {"id": "tidy", "kind": "shell", "run": "true", "always": true}
                ]}
                """) == nil)
        #expect(
            try select(
                """
                {"procedures": [
                  {"id": "db", "kind": "shell", "service": true, "run": "sleep 5", "ready": {"log": "up", "timeout": 2.5}},
                  {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["db"]}
                ]}
                """) == nil)
    }
}

/// What a large run holds at its end: its tables are made at their size, not doubled as it
/// goes.
@Suite("A run's tables")
struct RunTablesTests {
    @Test func aCacheMakesRoomForTheStepsARunMayRecordAndTheirFilesOnce() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = StepCache(
            directory: StateDirectory(path: root.path + "/.procflow"),
            workflowFile: root.path + "/flow.json", stepIDs: [])
        #expect(cache.recordCapacity < 5000)
        cache.expect(steps: 5000, files: 9000)
        #expect(cache.recordCapacity >= 5000)
        #expect(cache.files.capacity >= 9000)
        // Room made stays: a smaller expectation shrinks nothing.
        cache.expect(steps: 10, files: 10)
        #expect(cache.recordCapacity >= 5000)
        #expect(cache.files.capacity >= 9000)
    }

    @Test func anIncrementalStepIsLetGoOfOnceItsProcedureHasRunItsSourcesKept() throws {
        let steps = (0..<300).map {
            #"{"id": "s\#($0)", "kind": "file", "op": "write", "path": "out/\#($0).txt", "content": "x", "cache": true, "dependsOn": ["first"]}"#
        }
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "first", "kind": "shell", "run": "mkdir -p out && cp in.txt out/in.txt",
               "sources": ["in.txt"], "generates": ["out/in.txt"]},
              {"id": "g", "kind": "group", "procedures": [\(steps.joined(separator: ",\n"))]}
            ]}
            """)
        defer { fixture.remove() }
        let directory = fixture.directory.path
        try "in".write(toFile: directory + "/in.txt", atomically: true, encoding: .utf8)
        let workflow = try WorkflowLoader.load(path: directory + "/" + fixture.file)
        var options = WorkflowRunner.Options()
        // Built and let go of as the run goes, as a large run's steps are.
        options.deferringFrom = 1
        options.cache = StepCache(
            directory: StateDirectory(path: directory + "/.procflow"),
            workflowFile: directory + "/" + fixture.file,
            stepIDs: Set(["first", "g"] + (0..<300).map { "s\($0)" }))
        let runner = WorkflowRunner(workflow: workflow, options: options, reporters: [])
        // Watched, not held: each is a step's fields, 208 bytes of each of 100,000 steps.
        let boxes = runner.heldIncrementalSteps.map(WeakBox.init)
        #expect(boxes.count == 301)
        #expect(runner.run().result == .succeeded)
        // The runner and its builder hold none; the group let go of its steps as they ended,
        // and with them of the last of their fields: the last few are left.
        #expect(runner.heldIncrementalSteps.isEmpty)
        #expect(boxes.filter { $0.object != nil }.count < 64)
        // What the snapshot asks of them after the run: their sources, in file order.
        let kept = Array(runner.incremental)
        #expect(kept.map(\.id) == ["first"] + (0..<300).map { "s\($0)" })
        #expect(Array(kept[0].sources.paths) == [directory + "/in.txt"])
        #expect(kept[1].sources.isEmpty)
        #expect(runner.incrementalStepCount == 301)
    }

    @Test func aStepsStandingIsSmallAndKeepsWhatFewStepsHaveApart() {
        // A record a step of the run: its reason, value and name out of line.
        #expect(MemoryLayout<StepRecords.Record>.stride <= 64)
        var record = StepRecords.Record(path: ["group"], name: "each (x)")
        let copy = record
        record.reason = "its condition is false"
        record.value = RunSummary.ValuePreview(.string("out"), format: .text)
        #expect(record.name == "each (x)")
        #expect(record.reason == "its condition is false")
        #expect(record.value?.text == "out")
        // A copy keeps what it had: the box is replaced, not changed.
        #expect(copy.reason == nil && copy.value == nil && copy.name == "each (x)")
        record.name = nil
        record.reason = nil
        record.value = nil
        #expect(record.name == nil && record.reason == nil && record.value == nil)
    }

    @Test func aSummaryRowIsSmallAndKeepsWhatFewStepsHaveApart() {
        // A row a step of the summary, made at the run's end: its reason, value and name out of
        // line.
        #expect(MemoryLayout<RunSummary.Row>.stride <= 48)
        var row = RunSummary.Row(
            id: "a", path: ["group"], status: .skipped, duration: 1.5,
            reason: "its condition is false")
        let copy = row
        row.value = RunSummary.ValuePreview(.string("out"), format: .text)
        row.name = "each (x)"
        #expect(row.reason == "its condition is false")
        #expect(row.value?.text == "out")
        #expect(row.shown == "each (x)")
        // A copy keeps what it had: the box is replaced, not changed.
        #expect(copy.reason == "its condition is false" && copy.value == nil && copy.name == nil)
        #expect(copy.shown == "a")
        row.reason = nil
        row.value = nil
        row.name = nil
        #expect(row.name == nil && row.reason == nil && row.value == nil)
        #expect(row.id == "a" && row.path == ["group"] && row.duration == 1.5)
        // A row made from a step's standing shares its box rather than making another.
        var standing = StepRecords.Record(path: ["group"], name: "each (y)")
        standing.reason = "cached"
        let shared = RunSummary.Row(
            id: "b", path: standing.path, status: .cached, duration: nil,
            details: standing.details)
        #expect(shared.details === standing.details)
        #expect(shared.reason == "cached" && shared.name == "each (y)" && shared.value == nil)
    }
}

/// An object watched without being held.
private final class WeakBox {
    weak var object: AnyObject?

    init(_ object: AnyObject) {
        self.object = object
    }
}

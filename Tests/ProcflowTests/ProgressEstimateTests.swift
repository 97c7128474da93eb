import Foundation
import Testing

@testable import Procflow

@Suite("The time left")
struct ProgressEstimateTests {

    private let graph: WorkflowGraph = {
        let workflow = try! loadWorkflow(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "true"},
              {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["a"]},
              {"id": "c", "kind": "shell", "run": "true", "dependsOn": ["b"]},
              {"id": "d", "kind": "shell", "run": "true"},
              {"id": "g", "kind": "group", "procedures": [{"id": "inner", "kind": "shell", "run": "true"}]},
              {"id": "last", "kind": "shell", "run": "true", "dependsOn": ["g"]}
            ]}
            """
        ).get()
        return WorkflowGraph(workflow)
    }()

    private let start = Date(timeIntervalSince1970: 1_000)

    @Test func unknownUntilAStepHasFinished() {
        var estimate = ProgressEstimate(graph: graph, concurrency: 2)
        estimate.started("a", at: start)
        #expect(estimate.remaining(at: start.addingTimeInterval(3)) == nil)
    }

    @Test func theLongestChainOfRemainingStepsOrTheWorkSpreadOverTheLimit() {
        var estimate = ProgressEstimate(graph: graph, concurrency: 2)
        estimate.started("a", at: start)
        estimate.finished("a", at: start.addingTimeInterval(10))
        estimate.started("b", at: start.addingTimeInterval(10))
        estimate.started("inner", at: start.addingTimeInterval(10))
        let now = start.addingTimeInterval(12)
        // Each step is expected to take 10 s (the mean so far): b has 8 s left, then c 10 s;
        // the chain inner → last is 8 + 10; d 10; the work, 46 s over two places, is 23 s.
        #expect(estimate.remaining(at: now) == 23)
        var wide = ProgressEstimate(graph: graph, concurrency: 8)
        wide.started("a", at: start)
        wide.finished("a", at: start.addingTimeInterval(10))
        wide.started("b", at: start.addingTimeInterval(10))
        // The chain inner → last, through the group: 10 + 10 s, longer than b → c (8 + 10 s)
        // and than the work over eight places.
        #expect(wide.remaining(at: now) == 20)
    }

    @Test func durationsOfEarlierRunsTakePrecedence() {
        let history = KnownStepDurations(durations: ["c": 1, "d": 1, "inner": 1, "last": 1])
        var estimate = ProgressEstimate(graph: graph, concurrency: 8, history: history)
        estimate.started("a", at: start)
        estimate.finished("a", at: start.addingTimeInterval(10))
        estimate.started("b", at: start.addingTimeInterval(10))
        #expect(estimate.remaining(at: start.addingTimeInterval(12)) == 9)
    }

    @Test func stepsThatEndWithoutRunningLeaveNothingToWaitFor() {
        var estimate = ProgressEstimate(graph: graph, concurrency: 1)
        estimate.started("a", at: start)
        estimate.finished("a", at: start.addingTimeInterval(4))
        for id in ["b", "c", "d", "inner", "last"] {
            estimate.finished(id, at: start.addingTimeInterval(4))
        }
        #expect(estimate.remaining(at: start.addingTimeInterval(5)) == 0)
    }

    /// A second run of a workflow with known step times: the estimate made at its start, from
    /// the durations the first run kept in the state directory, against how long it took.
    @Test func aSecondRunIsEstimatedFromTheFirstsDurations() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "sleep 0.6"},
              {"id": "b", "kind": "shell", "run": "sleep 0.4", "dependsOn": ["a"]},
              {"id": "c", "kind": "shell", "run": "sleep 0.3"}
            ]}
            """)
        defer { fixture.remove() }
        let first = try fixture.run(["--max-concurrent", "2"])
        #expect(first.status == 0, "\(first.stderr)")
        let path = fixture.directory.appendingPathComponent("flow.json").path
        let directory = StateDirectory.beside(workflow: path)
        let kept = StepDurationsFile(directory: directory, workflowFile: path).load()
        #expect(Set(kept.keys) == ["a", "b", "c"])
        #expect(kept["a"].map { $0 >= 0.6 } == true)
        let workflow = try WorkflowLoader.load(path: path)
        let estimate = ProgressEstimate(
            graph: WorkflowGraph(workflow), concurrency: 2,
            history: KnownStepDurations(durations: kept))
        let started = Date()
        let predicted = try #require(estimate.remaining(at: started))
        let second = try fixture.run(["--max-concurrent", "2"])
        #expect(second.status == 0)
        let actual = Date().timeIntervalSince(started)
        // The critical path a → b, 1.0 s of sleeping; procflow's own start-up and the steps'
        // process starts come on top of the estimate.
        #expect(predicted >= 1.0 && predicted < 1.3, "predicted \(predicted) s")
        #expect(abs(actual - predicted) < 0.5, "predicted \(predicted) s, took \(actual) s")
        // --no-cache neither reads nor writes them.
        let durations = URL(fileURLWithPath: directory.durations(for: path))
        let untouched = try Data(contentsOf: durations)
        _ = try fixture.run(["--no-cache"])
        #expect(try Data(contentsOf: durations) == untouched)
    }

    @Test func aRunOfSomeStepsKeepsTheOthersDurations() throws {
        let fixture = try WorkflowFixture(
            #"""
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "true"},
              {"id": "b", "kind": "shell", "run": "true"},
              {"id": "each", "kind": "shell", "forEach": {"in": ["x", "y"]}, "run": "true"}
            ]}
            """#)
        defer { fixture.remove() }
        let file = Self.durationsFile(in: fixture.directory)
        #expect(try fixture.run().status == 0)
        let all = Set(file.load().keys)
        #expect(all.isSuperset(of: ["a", "b", "each[0]", "each[1]"]), "\(all)")
        #expect(try fixture.run(["a"]).status == 0)
        #expect(Set(file.load().keys) == all)
        // A step gone from the file goes from the file of durations at the next run.
        try Data(#"{"procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#.utf8).write(
            to: fixture.directory.appendingPathComponent("flow.json"))
        #expect(try fixture.run(["--force"]).status == 0)
        #expect(Set(file.load().keys) == ["a"])
    }

    @Test func durationsNearTheKeptOnesLeaveTheFileAsItIs() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = Self.durationsFile(in: directory)
        try file.record(["a": 1.0, "b": 0.01], ran: ["a", "b"], outside: [])
        let written = try #require(FileSystem.status(file.path))
        // Within a fifth, or 50 ms: the file is not written again.
        try file.record(["a": 1.15, "b": 0.055], ran: ["a", "b"], outside: [])
        #expect(FileSystem.status(file.path) == written)
        #expect(file.load() == ["a": 1.0, "b": 0.01])
        // Further off, or another set of steps: it is.
        try file.record(["a": 1.3], ran: ["a", "b"], outside: [])
        #expect(file.load() == ["a": 1.3, "b": 0.01])
        try file.record([:], ran: ["a"], outside: [])
        #expect(file.load() == ["a": 1.3])
    }

    @Test func aLargeRunsDurationsAreWrittenInPiecesAndReadBack() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = Self.durationsFile(in: directory)
        // More than one piece of the file (`StateFile.piece`): written as it is encoded.
        var durations: [String: Double] = [:]
        for number in 0..<70_000 { durations["step-\(number)"] = Double(number) / 7 }
        try file.record(durations, ran: Set(durations.keys), outside: [])
        #expect(try #require(FileSystem.status(file.path)).size > Int64(StateFile.piece))
        let kept = file.load()
        #expect(kept.count == durations.count)
        #expect(
            kept.allSatisfy { id, seconds in seconds == (durations[id]! * 1000).rounded() / 1000 })
        // The same again: left as it is.
        let written = try #require(FileSystem.status(file.path))
        try file.record(durations, ran: Set(durations.keys), outside: [])
        #expect(FileSystem.status(file.path) == written)
    }

    @Test func aDamagedDurationsFileIsIgnored() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#)
        defer { fixture.remove() }
        let file = Self.durationsFile(in: fixture.directory)
        try file.record(["a": 1.5, "gone": 2], ran: ["a"], outside: [])
        #expect(file.load() == ["a": 1.5])
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: file.path))
        #expect(file.load() == [:])
        // An earlier release's JSON file is one this release does not read: it is replaced.
        try Data(#"{"version": 1, "durations": {"a": 1.5}}"#.utf8).write(
            to: URL(fileURLWithPath: file.path))
        #expect(file.load() == [:])
        let run = try fixture.run()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(file.load().keys.sorted() == ["a"])
    }

    @Test func aRunsDurationsAreOneTableOfItsSteps() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = Self.durationsFile(in: directory)
        var run = StepDurationsFile.RunDurations()
        run["a"] = 1.2344
        run["b"] = 2.0
        try file.record(run, outside: [])
        #expect(file.load() == ["a": 1.234, "b": 2.0])
        // A step of the run without a new duration keeps its own; one gone from the run is
        // dropped, unless the run left its step out.
        var next = StepDurationsFile.RunDurations()
        next["a"] = .some(nil)
        next["c"] = 3.0
        try file.record(next, outside: [])
        #expect(file.load() == ["a": 1.234, "c": 3.0])
        var some = StepDurationsFile.RunDurations()
        some["c"] = 4.0
        try file.record(some, outside: ["a"])
        #expect(file.load() == ["a": 1.234, "c": 4.0])
    }

    /// A first run's durations are written as the run gives them, with no table of its steps;
    /// once a file is kept, the next run's are merged with it.
    @Test func aFirstRunsDurationsAreWrittenAsTheyComeThenMerged() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = Self.durationsFile(in: directory)
        // None succeeded: nothing is written.
        #expect(try file.recordFirst { _ in })
        #expect(!FileSystem.exists(file.path))
        #expect(
            try file.recordFirst { body in
                body("a", 1.2344)
                body("b", 2.0)
            })
        #expect(file.load() == ["a": 1.234, "b": 2.0])
        // Kept: left to the merge, which keeps a step the next run leaves out.
        #expect(try !file.recordFirst { body in body("c", 3.0) })
        #expect(file.load() == ["a": 1.234, "b": 2.0])
        var next = StepDurationsFile.RunDurations()
        next["c"] = 3.0
        try file.record(next, outside: ["a"])
        #expect(file.load() == ["a": 1.234, "c": 3.0])
    }

    /// The durations file of `flow.json` in `directory`, in its state directory there.
    private static func durationsFile(in directory: URL) -> StepDurationsFile {
        let path = directory.appendingPathComponent("flow.json").path
        return StepDurationsFile(
            directory: StateDirectory.beside(workflow: path), workflowFile: path)
    }

    @Test func inCIOutputIsGroupedUnlessAsked() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "echo hi"}]}"#)
        defer { fixture.remove() }
        for variable in ["GITHUB_ACTIONS", "GITLAB_CI"] {
            let grouped = try fixture.run(["--no-cache"], environment: [variable: "true"])
            #expect(grouped.stdout.contains("hi\n"), "\(variable)")
            #expect(!grouped.stdout.contains("a started"), "\(variable): \(grouped.stdout)")
        }
        let prefixed = try fixture.run(
            ["--no-cache", "--output", "prefixed"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(prefixed.stdout.contains("a started"))
        let plain = try fixture.run(["--no-cache"])
        #expect(plain.stdout.contains("a started"))
    }
}

import Foundation
import Testing

@testable import Procflow

extension WorkflowFixture {
    /// The snapshot the state directory holds, if any.
    func snapshot() throws -> UpToDateSnapshot? {
        guard let path = stateFile("uptodate") else { return nil }
        let bytes = try Data(contentsOf: directory.appendingPathComponent(path))
        return try UpToDateSnapshot(decoding: Array(bytes))
    }

    /// The ids of the steps the snapshot settles, sorted; `nil` without a snapshot of settled
    /// steps.
    func settledBySnapshot() throws -> [String]? {
        try snapshot()?.settledSteps.map { $0.map(\.id).sorted() }
    }
}

/// A run that ran some steps leaves a snapshot of the incremental steps it found up to date
/// (or ran and recorded), each with the files it stands on; the next run settles from it those
/// that stand on no file that changed, and decides the others (the edit loop).
@Suite("Snapshots of settled steps")
struct SettledStepsSnapshotTests {
    /// Two compiles, a link of both, and a check that always runs.
    static let build = """
        {"procedures": [
          {"id": "a", "kind": "shell", "run": "\(noting("a", "cp a.c a.o"))",
           "sources": ["a.c"], "generates": ["a.o"]},
          {"id": "b", "kind": "shell", "run": "\(noting("b", "cp b.c b.o"))",
           "sources": ["b.c"], "generates": ["b.o"]},
          {"id": "link", "kind": "shell", "dependsOn": ["a", "b"],
           "run": "\(noting("link", "cat a.o b.o > app"))",
           "sources": ["a.o", "b.o"], "generates": ["app"]},
          {"id": "check", "kind": "shell", "dependsOn": ["link"], "run": "\(noting("check", "cp app checked"))"}
        ]}
        """

    static func buildFixture() throws -> WorkflowFixture {
        let fixture = try WorkflowFixture(build)
        try fixture.write("a.c", "a1\n")
        try fixture.write("b.c", "b1\n")
        return fixture
    }

    /// Runs a workflow of `gen` (reading `in.txt`, which gets `input`), `use` (reading
    /// `use.txt`, taking gen's output) and an always running `check`; then again once every
    /// file's status can be trusted, which leaves a snapshot settling gen and use.
    static func settleGenAndUse(
        _ fixture: WorkflowFixture, in input: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        try fixture.write("in.txt", input)
        try fixture.write("use.txt", "u")
        #expect(
            try fixture.runSteps().ran == ["check", "gen", "use"], sourceLocation: sourceLocation)
        fixture.waitUntilStatusesAreTrusted()
        #expect(try fixture.runSteps().ran == ["check"], sourceLocation: sourceLocation)
        #expect(
            try fixture.settledBySnapshot() == ["gen", "use"], sourceLocation: sourceLocation)
    }

    @Test func anEditRunLeavesASnapshotOfTheStepsItDidNotRunAndTheNextSettlesThem() throws {
        let fixture = try Self.buildFixture()
        defer { fixture.remove() }
        #expect(try fixture.runSteps().ran == ["a", "b", "check", "link"])
        fixture.waitUntilStatusesAreTrusted()
        #expect(try fixture.runSteps().ran == ["check"])
        #expect(try fixture.settledBySnapshot() == ["a", "b", "link"])
        // The edit loop: a.c changes, b stands on nothing that changed.
        try fixture.write("a.c", "a2\n")
        #expect(try fixture.runSteps().ran == ["a", "check", "link"])
        #expect(fixture.contents("checked") == "a2\nb1\n")
        // What ran made files too fresh to trust: only b is in the snapshot.
        #expect(try fixture.settledBySnapshot() == ["b"])
        #expect(try fixture.snapshot()?.settlesEveryIncrementalStep == false)
        try fixture.write("a.c", "a3\n")
        let edited = try fixture.runSteps()
        #expect(edited.ran == ["a", "check", "link"])
        #expect(edited.statuses["b"] == "cached")
        #expect(fixture.contents("checked") == "a3\nb1\n")
        // Past the snapshot, a change to b's source is still seen.
        try fixture.write("b.c", "b2\n")
        #expect(try fixture.runSteps().ran == ["b", "check", "link"])
        #expect(fixture.contents("checked") == "a3\nb2\n")
        // Once everything is settled, the snapshot settles every incremental step again.
        fixture.waitUntilStatusesAreTrusted()
        #expect(try fixture.runSteps().ran == ["check"])
        #expect(try fixture.settledBySnapshot() == ["a", "b", "link"])
        #expect(try fixture.snapshot()?.settlesEveryIncrementalStep == true)
    }

    /// A workflow file over 1 MiB: the run keeps only its digest, not its bytes, for the
    /// snapshot; the snapshot names the file's content all the same, and a file touched (read
    /// again, its status changed) but not edited still leaves it usable.
    @Test func aLargeWorkflowFilesSnapshotHoldsItsDigest() throws {
        let padded = Self.build.replacingOccurrences(
            of: #"{"procedures": ["#,
            with: #"{"description": ""# + String(repeating: "x", count: 1_100_000)
                + #"", "procedures": ["#)
        let fixture = try WorkflowFixture(padded)
        defer { fixture.remove() }
        try fixture.write("a.c", "a1\n")
        try fixture.write("b.c", "b1\n")
        #expect(try fixture.runSteps().ran == ["a", "b", "check", "link"])
        fixture.waitUntilStatusesAreTrusted()
        #expect(try fixture.runSteps().ran == ["check"])
        let bytes = try #require(
            FileManager.default.contents(
                atPath: fixture.directory.appendingPathComponent(fixture.file).path))
        #expect(bytes.count > WorkflowRead.largestHeld)
        #expect(try fixture.snapshot()?.digest == SHA256.hash(Array(bytes)))
        // Written again as it was, and a.c edited: the workflow is read again and found to be
        // the one the snapshot is of, which settles b.
        try fixture.write(fixture.file, padded)
        try fixture.write("a.c", "a2\n")
        #expect(try fixture.runSteps().ran == ["a", "check", "link"])
        #expect(fixture.contents("checked") == "a2\nb1\n")
        #expect(try fixture.settledBySnapshot() == ["b"])
    }

    @Test func aStepWaitingForOneThatRunsIsDecidedNotSettled() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "gen", "kind": "shell", "run": "\(noting("gen", "cat in.txt"))",
               "output": "text", "sources": ["in.txt"]},
              {"id": "use", "kind": "shell", "inputs": {"V": {"from": "gen"}},
               "run": "\(noting("use", "printf %s \\\"$V\\\" > use.out"))",
               "sources": ["use.txt"], "generates": ["use.out"]},
              {"id": "check", "kind": "shell", "dependsOn": ["use"], "run": "\(noting("check", "true"))"}
            ]}
            """)
        defer { fixture.remove() }
        try Self.settleGenAndUse(fixture, in: "one")
        // use's source changes: it runs with the value gen gave, which the snapshot holds.
        try fixture.write("use.txt", "v")
        #expect(try fixture.runSteps().ran == ["check", "use"])
        #expect(fixture.contents("use.out") == "one")
        #expect(try fixture.settledBySnapshot() == ["gen"])
        // use's own files are unchanged, but the value it takes is not.
        try fixture.write("in.txt", "two")
        #expect(try fixture.runSteps().ran == ["check", "gen", "use"])
        #expect(fixture.contents("use.out") == "two")
    }

    @Test func aStepUnderAConditionIsSettledOnlyAsItsTurnComes() throws {
        // a is decided at its turn, once its condition holds: a snapshot cannot settle it
        // before the run, whatever its files.
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "when": {"exists": "gate"},
               "run": "\(noting("a", "cp a.c a.o"))", "sources": ["a.c"], "generates": ["a.o"]},
              {"id": "check", "kind": "shell", "run": "\(noting("check", "true"))"}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("a.c", "a1\n")
        try fixture.write("gate", "")
        #expect(try fixture.runSteps().ran == ["a", "check"])
        fixture.waitUntilStatusesAreTrusted()
        #expect(try fixture.runSteps().statuses["a"] == "cached")
        #expect(try fixture.settledBySnapshot() == ["a"])
        #expect(try fixture.snapshot()?.settlesEveryIncrementalStep == false)
        // Its condition no longer holds: it is skipped, not taken from the snapshot.
        try fixture.delete("gate")
        let skipped = try fixture.runSteps()
        #expect(skipped.ran == ["check"])
        #expect(skipped.statuses["a"] == "skipped")
    }

    @Test func aStepWaitingForOneSettledByAnEarlierRecordIsDecided() throws {
        // gen's source switched back: the cache settles it by its earlier record, whose value
        // use's snapshot entry was not taken with.
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "gen", "kind": "shell", "run": "\(noting("gen", "cat in.txt"))",
               "output": "text", "sources": ["in.txt"]},
              {"id": "use", "kind": "shell", "inputs": {"V": {"from": "gen"}},
               "run": "\(noting("use", "printf %s \\\"$V\\\""))", "output": "text", "sources": ["use.txt"]},
              {"id": "check", "kind": "shell", "inputs": {"W": {"from": "use"}},
               "run": "\(noting("check", "printf %s \\\"$W\\\" > check.out"))"}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("in.txt", "one")
        try fixture.write("use.txt", "u")
        #expect(try fixture.runSteps().ran == ["check", "gen", "use"])
        try fixture.write("in.txt", "two")
        fixture.waitUntilStatusesAreTrusted()
        #expect(try fixture.runSteps().ran == ["check", "gen", "use"])
        #expect(fixture.contents("check.out") == "two")
        #expect(try fixture.settledBySnapshot() == ["gen", "use"])
        try fixture.write("in.txt", "one")
        fixture.waitUntilStatusesAreTrusted()
        let back = try fixture.runSteps()
        // gen and use come from their earlier records; use's value is the one of "one".
        #expect(back.ran == ["check"])
        #expect(fixture.contents("check.out") == "one")
    }

    @Test func aStepThatFailedIsLeftOutOfTheSnapshot() throws {
        // `use` fails on the value `bad`: its last record is still of the value before.
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "gen", "kind": "shell", "run": "\(noting("gen", "cat in.txt"))",
               "output": "text", "sources": ["in.txt"]},
              {"id": "use", "kind": "shell", "inputs": {"V": {"from": "gen"}},
               "run": "\(noting("use", "test \\\"$V\\\" != bad"))", "sources": ["use.txt"],
               "continueOnError": true},
              {"id": "check", "kind": "shell", "run": "\(noting("check", "true"))"}
            ]}
            """)
        defer { fixture.remove() }
        // use's record then holds its source's status, trusted.
        try Self.settleGenAndUse(fixture, in: "good")
        try fixture.write("in.txt", "bad")
        // Every file's status trusted: gen's new record could stand in a snapshot. With
        // --explain, which takes nothing from the snapshot, use is decided, and fails.
        fixture.waitUntilStatusesAreTrusted()
        let failed = try fixture.runSteps(["--explain"])
        #expect(failed.ran == ["check", "gen", "use"])
        #expect(failed.statuses["use"] == "warning")
        #expect(try fixture.settledBySnapshot() == ["gen"])
        // Nothing changed, and use runs again: the value it takes is not its record's.
        let again = try fixture.runSteps()
        #expect(again.ran == ["check", "use"])
        #expect(again.statuses["use"] == "warning")
    }

    @Test func aSnapshotOfEverythingTakenPastOneOfSettledStepsStillSeesTheirFiles() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "\(noting("a", "cp a.c a.o"))",
               "sources": ["a.c"], "generates": ["a.o"]},
              {"id": "b", "kind": "shell", "run": "\(noting("b", "cp b.c b.o"))",
               "sources": ["b.c"], "generates": ["b.o"]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("a.c", "a1\n")
        try fixture.write("b.c", "b1\n")
        #expect(try fixture.runSteps().ran == ["a", "b"])
        fixture.waitUntilStatusesAreTrusted()
        try fixture.write("a.c", "a2\n")
        // a's files are too fresh to trust: a snapshot of b alone.
        #expect(try fixture.runSteps().ran == ["a"])
        #expect(try fixture.settledBySnapshot() == ["b"])
        fixture.waitUntilStatusesAreTrusted()
        // b settled by the snapshot, a decided: everything is up to date, and the snapshot
        // of everything holds b's files too.
        #expect(try fixture.runSteps().ran == [])
        #expect(try fixture.snapshot()?.settledSteps == nil)
        #expect(try fixture.runSteps().ran == [])
        try fixture.write("b.c", "b2\n")
        #expect(try fixture.runSteps().ran == ["b"])
        #expect(fixture.contents("b.o") == "b2\n")
    }

    @Test func theFilesEachSettledStepStandsOnReadBackAsWritten() throws {
        var snapshot = StateFileTests.sampleSnapshot(settledSteps: [
            ("a", .null), ("b", .string("v")),
        ])
        let status = FileStatus(size: 1, modified: 2, changed: 3, inode: 4, mode: 0o100644)
        snapshot.files += [("/work/a.c", status), ("/work/b.c", status), ("/work/common.h", nil)]
        snapshot.sharedFileCount = 2
        snapshot.filesOfSettledSteps = [[2, 4], [3, 4]]
        snapshot.settlesEveryIncrementalStep = false
        let decoded = try UpToDateSnapshot(decoding: snapshot.encoded())
        #expect(decoded == snapshot)
        #expect(decoded.filesOfSettledSteps == [[2, 4], [3, 4]])
        #expect(decoded.sharedFileCount == 2)
        #expect(!decoded.settlesEveryIncrementalStep)
        // A position past the files is a damaged file, not a crash.
        snapshot.filesOfSettledSteps = [[2, 5], [3]]
        #expect(throws: StateFile.Problem.self) {
            try UpToDateSnapshot(decoding: snapshot.encoded())
        }
    }

    @Test func theRunsPreviewSettlesWhatASnapshotSettlesWithoutDecidingIt() throws {
        // `b` has no record: the cache alone would run it.
        let fixture = try Self.buildFixture()
        defer { fixture.remove() }
        try fixture.write("b.o", "b0\n")
        let workflow = try WorkflowLoader.load(path: fixture.directory.path + "/" + fixture.file)
        let cache = StepCache(
            directory: StateDirectory(path: fixture.directory.path + "/.procflow"),
            workflowFile: workflow.path, stepIDs: ["a", "b", "link", "check"])
        var options = WorkflowRunner.Options(cache: cache)
        options.presettled = ["b": SettledStep(value: .null, note: nil)]
        let runner = WorkflowRunner(workflow: workflow, options: options, reporters: [])
        let summary = runner.run()
        #expect(runner.settledFromSnapshot == ["b"])
        #expect(fixture.ran.sorted() == ["a", "check", "link"])
        #expect(summary.rows.first { $0.id == "b" }?.status == .cached)
    }
}

/// Hundreds of files named by one step (a link's objects) are looked up on every core, each
/// as it would be alone.
@Suite("Statuses looked up on every core")
struct ParallelStatusTests {
    @Test func theStatusesOfManyPathsAreEachPathsOwnInOrder() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var paths: [String] = []
        for n in 0..<(2 * FileDigests.parallelLookups) {
            let path = root.path + "/f\(n)"
            // Every third is missing.
            if n % 3 != 0 { try Data(repeating: 1, count: n).write(to: URL(fileURLWithPath: path)) }
            paths.append(path)
        }
        let statuses = FileDigests().statuses(of: paths)
        #expect(statuses.count == paths.count)
        for (path, status) in zip(paths, statuses) {
            #expect(status == FileSystem.status(path), "\(path)")
        }
        // While nothing runs, the statuses seen are kept: the same come back.
        let digests = FileDigests()
        #expect(digests.whileNothingRuns { digests.statuses(of: paths) } == statuses)
    }
}

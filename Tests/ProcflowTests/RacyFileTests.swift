import Foundation
import ProcedureKit
import Testing

@testable import Procflow

/// What a run records is what its command saw and made, or nothing: files that change while
/// a step runs, or while its outputs are stored, never become an "up to date" next time.
@Suite("Racy files")
struct RacyFileTests {

    @Test func aDepfileHeaderEditedDuringTheRunWithItsOldTimeKeptRunsTheStepAgain() throws {
        // The command reads the header, then it is rewritten with the same size and its old
        // modification time put back, as `cp -p`, `touch -r`, `rsync -t` and `tar x` do.
        let fixture = try WorkflowFixture(
            #"""
            {"procedures": [{"id": "cc", "kind": "shell",
              "run": "echo cc >> runs.log; cat b.c h.h > b.o; if [ -e edit ]; then touch -r h.h ref; printf '#define H 2222\\n' > h.h; touch -r ref h.h; rm edit; fi; printf 'b.o: h.h\\n' > b.d",
              "sources": ["b.c"], "depfile": "b.d", "generates": ["b.o"]}]}
            """#)
        defer { fixture.remove() }
        try fixture.write("b.c", "int b;\n")
        try fixture.write("h.h", "#define H 1111\n")
        let hourAgo = Date().addingTimeInterval(-3600)
        for name in ["b.c", "h.h"] {
            try FileManager.default.setAttributes(
                [.modificationDate: hourAgo],
                ofItemAtPath: fixture.directory.appendingPathComponent(name).path)
        }
        #expect(try fixture.runSteps().ran == ["cc"])
        try fixture.write("edit", "")
        #expect(try fixture.runSteps(["--force"]).ran == ["cc"])
        // b.o was made from the old header: the next run must make it again.
        let third = try fixture.runSteps()
        #expect(third.ran == ["cc"])
        #expect(fixture.contents("b.o")?.hasSuffix("#define H 2222\n") == true)
        #expect(try fixture.runSteps().ran == [])
    }

    /// Fixed-seed trials of file times against a step's start, on file systems that keep
    /// times to the nanosecond, the second and two seconds: a write at or after the start is
    /// never taken for one before it, and a status trusted at some instant tells every later
    /// write.
    @Test func fileTimesNeverHideAWriteOnAnyGranularity() {
        var random = FuzzRandom(state: 0x7AC7)
        let second: Int64 = 1_000_000_000
        let base: Int64 = 1_800_000_000 * second
        for trial in 0..<20_000 {
            let granularity = [1, second, 2 * second][trial % 3]
            // The kernel's clock is a tick behind a process's.
            let tick = Int64.random(in: 0...4_000_000, using: &random)
            func stamp(_ instant: Int64) -> Int64 { (instant - tick) / granularity * granularity }
            func status(writtenAt instant: Int64) -> FileStatus {
                FileStatus(
                    size: 1, modified: stamp(instant), changed: stamp(instant), inode: 1, mode: 0)
            }
            let start = base + Int64.random(in: 0...(10 * second), using: &random)
            let write = start + Int64.random(in: -3 * second...3 * second, using: &random)
            let written = status(writtenAt: write)
            if write >= start {
                #expect(
                    written.mayHaveChanged(since: start), "write at \(write), start \(start)")
            }
            // Trusted when seen at `seen`: a later write shows in the status.
            let seen = write + Int64.random(in: 0...(4 * second), using: &random)
            let later = seen + Int64.random(in: 1...(3 * second), using: &random)
            if written.isSettled(at: seen), granularity == 1 || written.hasCoarseTimes {
                #expect(
                    !status(writtenAt: later).looksUnchanged(from: written),
                    "written \(write), seen \(seen), written again \(later)")
            }
        }
    }

    @Test func aGeneratedFileThatChangesWhileItIsStoredIsNotRecorded() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "make", "kind": "shell", "run": "true", "generates": ["big.bin"]}]}"#
        )
        defer { fixture.remove() }
        let file = fixture.directory.appendingPathComponent("big.bin")
        try Data(count: 8 << 20).write(to: file)
        let (cache, step) = try fixture.cacheOfStep("make")
        let fingerprint = cache.fingerprint(step, inputs: [])
        let lock = cache.beginRun(of: step)
        // Another process's writes, from before the cache looks until after it has read.
        let writing = Locked(true)
        let writer = Thread {
            let handle = try! FileHandle(forWritingTo: file)
            while writing.withLock({ $0 }) {
                handle.seekToEndOfFile()
                handle.write(Data([1]))
            }
            try? handle.close()
        }
        writer.start()
        try cache.record(
            step, fingerprint: fingerprint, value: .null,
            startedAt: FileSystem.now() - 1_000_000_000, lock: lock)
        writing.withLock { $0 = false }
        #expect(cache.latestRecord(of: "make") == nil)
        #expect(
            cache.takeProblems() == [
                "make: big.bin changed after its command ended (another run writing it?); this run is not recorded, and the step runs next time"
            ])
    }

    @Test func aStepTwoRunsRanAtOnceIsRecordedByNeither() throws {
        // x starts s and waits in it for the file `go`; y runs s from start to end meanwhile.
        let fixture = try WorkflowFixture(
            """
            {"vars": {"GATE": "open"},
             "procedures": [{"id": "s", "kind": "shell", "generates": ["out.txt"],
               "run": "echo s >> runs.log; touch started; while [ ! -e $GATE ]; do sleep 0.02; done; printf whole > out.txt"}]}
            """)
        defer { fixture.remove() }
        try fixture.write("open", "")
        let x = Locked<CommandResult?>(nil)
        let xEnded = DispatchSemaphore(value: 0)
        // A thread of its own: the run blocks it for seconds.
        Thread {
            let result = try? fixture.run(["--var", "GATE=go"])
            x.withLock { $0 = result }
            xEnded.signal()
        }.start()
        #expect(eventually(timeout: 30) { fixture.exists("started") })
        let y = try fixture.run()
        try fixture.write("go", "")
        #expect(xEnded.wait(timeout: .now() + 60) == .success)
        let warning = "warning: s: another run ran it at the same time; this run is not recorded"
        #expect(y.stderr.contains(warning), "\(y.stderr)")
        #expect(x.withLock { $0?.stderr.contains(warning) } == true)
        try fixture.delete("runs.log")
        #expect(try fixture.runSteps().ran == ["s"])
        #expect(try fixture.runSteps().ran == [])
    }

    /// Fixed-seed trials of two runs of one workflow at once, then a third alone: every
    /// generated file ends whole, whatever the third run restored.
    @Test func concurrentRunsNeverLeaveATornFileUpToDate() throws {
        var random = FuzzRandom(state: 0xC0DE)
        let steps = (0..<4).map { index in
            #"{"id": "s\#(index)", "kind": "shell", "run": "sleep 0.0\#(index); for k in 1 2 3 4 5 6 7 8; do cat slice; sleep 0.01; done > o\#(index).bin", "sources": ["slice"], "generates": ["o\#(index).bin"]}"#
        }
        let fixture = try WorkflowFixture(#"{"procedures": [\#(steps.joined(separator: ","))]}"#)
        defer { fixture.remove() }
        for trial in 0..<4 {
            let size = Int.random(in: (256 << 10)...(2 << 20), using: &random)
            let slice = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
            try Data(slice).write(to: fixture.directory.appendingPathComponent("slice"))
            let whole = Data((0..<8).flatMap { _ in slice })
            try? fixture.delete(".procflow")
            let offset = Double.random(in: 0...0.05, using: &random)
            let results = Locked([CommandResult]())
            DispatchQueue.concurrentPerform(iterations: 2) { run in
                if run == 1 { Thread.sleep(forTimeInterval: offset) }
                if let result = try? fixture.run() { results.withLock { $0.append(result) } }
            }
            #expect(results.withLock { $0.map(\.status) } == [0, 0])
            let third = try fixture.run()
            #expect(third.status == 0)
            for index in 0..<4 {
                let file = fixture.directory.appendingPathComponent("o\(index).bin")
                #expect(
                    try Data(contentsOf: file) == whole,
                    "trial \(trial), o\(index).bin: \(third.stdout)")
            }
        }
    }
}

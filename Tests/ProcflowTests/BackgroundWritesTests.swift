import CProcflow
import Foundation
import ProcedureKit
import Testing

@testable import Procflow

#if canImport(Glibc)
    import Glibc
#endif

private func currentThread() -> UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }

/// A step's generated files of tens of KiB are stored beside the run, as they were read, not
/// before its dependents start: what puts them back, or saves the index, waits for them first.
@Suite("Writes beside the run")
struct BackgroundWritesTests {
    @Test func writesAreDoneInOrderOnALowPriorityThreadAndWaitedFor() {
        let writes = BackgroundWrites()
        let done = Locked([Int]())
        let seen = Locked((thread: UInt(0), nice: Int32(0)))
        for index in 0..<200 {
            writes.add {
                if index == 0 {
                    seen.withLock {
                        $0 = (
                            currentThread(),
                            getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                        )
                    }
                }
                done.withLock { $0.append(index) }
            }
        }
        writes.wait()
        #expect(done.withLock { $0 } == Array(0..<200))
        let (thread, nice) = seen.withLock { $0 }
        #expect(thread != currentThread())
        // The lowest priority, that thread's alone: not in the way of the next command.
        #expect(nice == 19)
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == 0)
    }

    @Test func addingAWriteDoesNotWaitForIt() {
        let writes = BackgroundWrites()
        let release = DispatchSemaphore(value: 0)
        let finished = Locked(false)
        writes.add {
            _ = release.wait(timeout: .now() + 30)
            finished.withLock { $0 = true }
        }
        #expect(!finished.withLock { $0 })
        release.signal()
        writes.wait()
        #expect(finished.withLock { $0 })
        // The thread, waiting for more, takes a later write too.
        writes.add { finished.withLock { $0 = false } }
        writes.wait()
        #expect(!finished.withLock { $0 })
    }

    @Test func writesHoldingTooMuchAreWaitedFor() {
        let writes = BackgroundWrites()
        let finished = Locked(false)
        writes.add(holding: BackgroundWrites.mostHeld + 1) { finished.withLock { $0 = true } }
        // Not left to the writes' thread: done by the time `add` returns.
        #expect(finished.withLock { $0 })
    }

    @Test func aSmallFileIsStoredLaterAsItWasRead() throws {
        let fixture = try WorkflowFixture(#"{"procedures": []}"#)
        defer { fixture.remove() }
        let directory = StateDirectory(path: fixture.directory.path + "/.procflow")
        try directory.prepare()
        let store = directory.store
        let path = fixture.directory.path + "/out.bin"
        try fixture.write("out.bin", "made by the step\n")
        let read = try #require(try store.readKeepingContent(fileAt: path))
        #expect(read.content == Array("made by the step\n".utf8))
        #expect(read.stored.digest == SHA256.hash(read.content))
        #expect(read.stored.isSteady)
        #expect(!store.contains(read.stored.digest))
        // Changed (or removed) by a later step before it is stored: what the step made is.
        try fixture.write("out.bin", "changed by the next step\n")
        #expect(try store.add(read.content, as: read.stored.digest) == 17)
        #expect(
            FileManager.default.contents(atPath: store.path(of: read.stored.digest))
                == Data("made by the step\n".utf8))
        // There already: marked used, not written again.
        let old = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes(
            [.modificationDate: old], ofItemAtPath: store.path(of: read.stored.digest))
        #expect(try store.add(read.content, as: read.stored.digest) == 0)
        let touched = try FileManager.default.attributesOfItem(
            atPath: store.path(of: read.stored.digest))
        #expect((touched[.modificationDate] as? Date ?? old) > old)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.temporaryDirectory) == [])
        // A larger file is left unread, to be stored at once.
        try Data(count: 64).write(to: URL(fileURLWithPath: path))
        #expect(try store.readKeepingContent(fileAt: path, upTo: 63) == nil)
        #expect(try store.readKeepingContent(fileAt: path, upTo: 64)?.content.count == 64)
    }

    /// A step recorded in this process: its output's copy is given to the writes.
    private static func recordedStep(_ fixture: WorkflowFixture) throws -> (
        StepCache, IncrementalStep
    ) {
        // A file of tens of KiB, as a linked program: stored beside the run.
        try fixture.write(
            "out.txt", String(repeating: "made\n", count: ContentStore.keptSizes.lowerBound / 4))
        let (cache, step) = try fixture.cacheOfStep("make")
        let fingerprint = cache.fingerprint(step, inputs: [])
        try cache.record(
            step, fingerprint: fingerprint, value: .null,
            startedAt: FileSystem.now() - 1_000_000_000, lock: cache.beginRun(of: step))
        return (cache, step)
    }

    private static let makeStep =
        #"{"procedures": [{"id": "make", "kind": "shell", "run": "true", "generates": ["out.txt"]}]}"#

    @Test func aStepsGeneratedFileIsStoredByTheTimeTheIndexIsSaved() throws {
        let fixture = try WorkflowFixture(Self.makeStep)
        defer { fixture.remove() }
        let (cache, _) = try Self.recordedStep(fixture)
        #expect(cache.save() == nil)
        let digest = try #require(cache.latestRecord(of: "make")?.outputs.first?.digest)
        #expect(cache.directory.store.contains(digest))
    }

    @Test func aFileRemovedJustAfterItsStepIsRecordedCanBePutBack() throws {
        let fixture = try WorkflowFixture(Self.makeStep)
        defer { fixture.remove() }
        let (cache, step) = try Self.recordedStep(fixture)
        // A dependent that moves its input away (`gzip`), before the store has it.
        try fixture.delete("out.txt")
        let decision = cache.decide(step, inputs: [])
        guard case .restore(_, let outputs) = decision else {
            Issue.record("expected the file to be put back, got \(decision)")
            return
        }
        #expect(outputs.map(\.path) == [fixture.directory.path + "/out.txt"])
    }
}

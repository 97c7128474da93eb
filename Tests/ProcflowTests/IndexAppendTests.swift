import Foundation
import Testing

@testable import Procflow

/// A run appends the records it changed to the index's file rather than writing every record
/// again, unless another run wrote the file since, a record must be dropped, or the entries
/// have grown past half of the base.
@Suite("The index's appended records")
struct IndexAppendTests {
    /// A state directory of its own and the workflow file whose index it keeps.
    private struct Fixture {
        let root: URL
        var directory: StateDirectory { StateDirectory(path: root.path + "/.procflow") }
        var workflowFile: String { root.path + "/build.json" }

        init() throws { root = try temporaryDirectory() }

        /// The index as a run starting now reads it.
        func open() -> IndexFile { IndexFile(directory: directory, workflowFile: workflowFile) }

        var bytes: [UInt8] {
            (try? POSIXIO.readFile(directory.index(for: workflowFile)).get()) ?? []
        }

        var layout: StateFile.Layout? { try? StateIndex.decoding(bytes).layout }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    /// A record told apart from others by `value`.
    private static func record(_ value: String) -> StepRecord {
        var record = StateFileTests.sampleIndex().steps["compile"]!
        record.value = Array(value.utf8)
        return record
    }

    /// `index` with `changes` made, as a run learns them.
    private static func changing(
        _ index: StateIndex, _ changes: [String: StepRecord?]
    ) -> StateIndex {
        var index = index
        for (id, record) in changes { index.steps[id] = record }
        return index
    }

    private static func save(
        _ file: IndexFile, _ changes: [String: StepRecord?], stored: Int64 = 0,
        isKnown: (String) -> Bool = { _ in true },
        replaced: (StepRecord, String) -> Void = { _, _ in }
    ) throws {
        try file.save(
            changing(file.loaded, changes), changed: Set(changes.keys), stored: stored,
            isKnown: isKnown, replaced: replaced)
    }

    @Test func aRunAppendsTheRecordsItChangedAndTheNextRunReadsThem() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try Self.save(fixture.open(), ["a": Self.record("1"), "b": Self.record("2")], stored: 10)
        let base = fixture.bytes
        #expect(fixture.layout == StateFile.Layout(baseLength: base.count, isAppendable: true))
        try Self.save(fixture.open(), ["a": Self.record("3"), "b": nil], stored: 5)
        let appended = fixture.bytes
        // The base as it was, one entry after it.
        #expect(Array(appended.prefix(base.count)) == base)
        #expect(appended.count > base.count)
        #expect(
            fixture.layout
                == StateFile.Layout(
                    baseLength: base.count, appendedLength: appended.count - base.count,
                    isAppendable: true))
        let read = fixture.open().loaded
        #expect(read.steps == ["a": Self.record("3")])
        #expect(read.storeSize == 15)
        // A process that saves again (a watch) appends again.
        let watching = fixture.open()
        try Self.save(watching, ["c": Self.record("4")])
        try watching.save(
            Self.changing(watching.loaded, ["c": Self.record("4"), "d": Self.record("5")]),
            changed: ["d"], stored: 0, isKnown: { _ in true }, replaced: { _, _ in })
        #expect(Array(fixture.bytes.prefix(base.count)) == base)
        #expect(fixture.layout?.isAppendable == true)
        #expect(Set(fixture.open().loaded.steps.keys) == ["a", "c", "d"])
    }

    @Test func anIndexAnotherRunWroteSinceIsMergedAndWrittenWhole() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try Self.save(fixture.open(), ["a": Self.record("1")])
        let first = fixture.open()
        let second = fixture.open()
        try Self.save(first, ["a": Self.record("2"), "b": Self.record("3")])
        var replaced: [String] = []
        try Self.save(
            second, ["a": Self.record("4"), "c": Self.record("5")],
            replaced: { _, id in replaced.append(id) })
        // The first run's record of `a` is replaced; its `b` is kept.
        #expect(replaced == ["a"])
        #expect(
            fixture.open().loaded.steps
                == ["a": Self.record("4"), "b": Self.record("3"), "c": Self.record("5")])
        #expect(fixture.layout?.appendedLength == 0)
    }

    /// The cache takes the records the file read (``IndexFile/takeLoaded()``), so that they are
    /// held once, and tells the save what it read of the steps it replaced: another run's
    /// record is handed over as replaced only if it differs from that.
    @Test func aFileWhoseRecordsWereTakenIsToldWhatTheRunRead() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try Self.save(fixture.open(), ["a": Self.record("1"), "b": Self.record("1")])
        var run = fixture.open()
        let taken = run.takeLoaded()
        #expect(taken.steps == ["a": Self.record("1"), "b": Self.record("1")])
        #expect(run.loaded.steps.isEmpty)
        // Another run writes `a` again; `b` it leaves as this run read it.
        try Self.save(fixture.open(), ["a": Self.record("2")])
        var replaced: [String] = []
        var learnt = taken
        learnt.steps["a"] = Self.record("3")
        learnt.steps["b"] = Self.record("3")
        try run.save(
            learnt, changed: ["a", "b"], stored: 0, isKnown: { _ in true },
            replaced: { _, id in replaced.append(id) }, read: { taken.steps[$0] })
        #expect(replaced == ["a"])
        #expect(fixture.open().loaded.steps == ["a": Self.record("3"), "b": Self.record("3")])
    }

    @Test func aRecordToDropOrEntriesPastHalfOfTheBaseWriteTheIndexWhole() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try Self.save(fixture.open(), ["a": Self.record("1"), "gone": Self.record("2")])
        // `gone` is no longer a step of the workflow.
        try Self.save(fixture.open(), ["a": Self.record("3")], isKnown: { $0 != "gone" })
        #expect(fixture.open().loaded.steps == ["a": Self.record("3")])
        #expect(fixture.layout?.appendedLength == 0)
        // Entries are appended until they would pass the least the file holds before it is
        // written whole again.
        let big = String(repeating: "x", count: 4000)
        var appended: [Int] = []
        for round in 0..<8 {
            try Self.save(fixture.open(), ["a": Self.record(big + "\(round)")])
            appended.append(fixture.layout?.appendedLength ?? -1)
        }
        #expect(appended.allSatisfy { $0 <= IndexFile.leastAppended })
        #expect(appended.contains(0), "never written whole: \(appended)")
        #expect(appended.contains { $0 > 0 }, "never appended: \(appended)")
        #expect(fixture.open().loaded.steps == ["a": Self.record(big + "7")])
    }

    @Test func aTornEntryIsNotReadAndTheNextRunWritesTheIndexWhole() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try Self.save(fixture.open(), ["a": Self.record("1")])
        let base = fixture.bytes
        try Self.save(fixture.open(), ["a": Self.record("2"), "b": Self.record("3")])
        let whole = fixture.bytes
        let path = fixture.directory.index(for: fixture.workflowFile)
        var flipped = whole
        flipped[base.count + 20] ^= 0x40
        // Cut short, cut inside its header, or altered.
        for torn in [Array(whole.dropLast(3)), Array(whole.prefix(base.count + 5)), flipped] {
            try Data(torn).write(to: URL(fileURLWithPath: path))
            let read = fixture.open()
            // Nothing of the torn entry, no warning: its steps run again.
            #expect(read.loaded.steps == ["a": Self.record("1")])
            #expect(read.isSound)
            #expect(fixture.layout?.isAppendable == false)
            try Self.save(read, ["c": Self.record("4")])
            #expect(
                fixture.layout
                    == StateFile.Layout(baseLength: fixture.bytes.count, isAppendable: true))
            #expect(fixture.open().loaded.steps == ["a": Self.record("1"), "c": Self.record("4")])
        }
    }

    @Test func anIndexOfTheFormatBeforeIsReadAndWrittenWholeNext() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let index = StateFileTests.sampleIndex()
        // Format 2: the header and the records, without the base's length.
        let body = Array(index.encoded().dropFirst(28))
        let path = fixture.directory.index(for: fixture.workflowFile)
        try fixture.directory.prepare()
        try Data(StateFile.wrap(body, as: .index)).write(to: URL(fileURLWithPath: path))
        let read = fixture.open()
        #expect(read.loaded.steps == index.steps)
        #expect(fixture.layout?.isAppendable == false)
        try Self.save(read, ["b": Self.record("1")])
        #expect(fixture.layout?.isAppendable == true)
        #expect(fixture.layout?.appendedLength == 0)
        #expect(Set(fixture.open().loaded.steps.keys) == ["compile", "b"])
    }

    /// What an up-to-date snapshot records of the index: its status as the run read or wrote
    /// it, and none once another run wrote it since (the run's records may not be the file's).
    @Test func theStatusARunKnowsTheIndexByIsItsOwnUntilAnotherRunWritesIt() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let path = fixture.directory.index(for: fixture.workflowFile)
        try Self.save(fixture.open(), ["a": Self.record("1")])
        let ours = fixture.open()
        #expect(ours.ownStatus == FileSystem.status(path))
        try Self.save(ours, ["a": Self.record("2")])
        #expect(ours.ownStatus == FileSystem.status(path))
        // Another run writes the index: what this one read is not what it holds.
        let other = fixture.open()
        let late = fixture.open()
        try Self.save(other, ["b": Self.record("3")])
        #expect(late.ownStatus != FileSystem.status(path))
        // Saving merges the other run's records: its status is no longer this run's own.
        try Self.save(late, ["c": Self.record("4")])
        #expect(late.ownStatus == nil)
        #expect(Set(fixture.open().loaded.steps.keys) == ["a", "b", "c"])
    }
}

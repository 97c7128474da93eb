import Foundation
import Testing

@testable import Procflow

/// The records a run makes, kept encoded and past a buffer's worth in a private file without a
/// name (``RecordSpill``), not held as values to the end of the run.
@Suite("Records spilled")
struct RecordSpillTests {
    /// A record of `sources` sources, distinct for each `n`.
    static func record(_ n: Int, sources: Int = 1) -> StepRecord {
        let status = FileStatus(
            size: Int64(n), modified: 11, changed: 12, inode: UInt64(n), mode: 0o100644)
        return StepRecord(
            definition: SHA256.hash(Array("step \(n)".utf8)), environment: SHA256.hash([]),
            directory: "/work",
            inputs: n % 3 == 0 ? [.init(name: "IN", digest: SHA256.hash([1]))] : [],
            sources: (0..<sources).map {
                .init(
                    path: "/work/in/\(n)-\($0).txt", digest: SHA256.hash([UInt8(n % 256)]),
                    status: status)
            },
            discovered: [],
            outputs: [
                .init(
                    path: "/work/out/\(n).txt", digest: SHA256.hash([2]), permissions: 0o644,
                    status: status)
            ],
            value: Array("\(n)".utf8))
    }

    @Test func aSlotOfARecordNotMadeIsSmall() {
        // A made record inline took 128 bytes in every slot, encoded and spilled ones too.
        #expect(IndexRecords.slotSize <= 16)
    }

    @Test func aRunsRecordsSpillIntoAPrivateFileWithoutANameAndReadBackAsSet() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.path + "/state/tmp"
        var records = IndexRecords()
        records.spill(into: directory, bufferSize: 1024)
        for n in 0..<200 { records["s\(n)"] = Self.record(n, sources: 1 + n % 4) }
        let spill = try #require(records.spilled)
        // Most are in the file; the buffer holds less than its size and one record.
        #expect(spill.spilledBytes > 200 * 200)
        #expect(spill.bufferedBytes < 1024 + 1024)
        // The file is the user's alone, and has no name: nothing is left in the directory.
        let file = try #require(spill.file)
        #expect(file.permissions == 0o600)
        #expect(file.links == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        // Read back in any order: from the file (in windows) and from the buffer.
        for n in [199, 0, 150, 1, 198, 77, 3] {
            #expect(records["s\(n)"] == Self.record(n, sources: 1 + n % 4))
        }
        #expect(records.map(\.key) == (0..<200).map { "s\($0)" })
        #expect(
            zip(records, 0..<200).allSatisfy { $0.value == Self.record($1, sources: 1 + $1 % 4) })
        #expect(records.record("s5") == Self.record(5, sources: 2))
        // Replaced and removed as values are; copies share the file.
        records["s5"] = Self.record(1000)
        records["s6"] = nil
        #expect(records["s5"] == Self.record(1000))
        #expect(records["s6"] == nil)
        #expect(records.count == 199)
        let kept = records.filter(ids: { $0.hasSuffix("7") })
        #expect(kept["s77"] == Self.record(77, sources: 2))
        // Saved as an index, it reads back the same.
        var index = StateIndex()
        index.steps = records
        let decoded = try StateIndex(decoding: index.encoded())
        #expect(decoded.steps == records)
    }

    @Test func recordsStayInMemoryWhereTheirFileCannotBeMade() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // A regular file where the directory would be.
        try Data().write(to: root.appendingPathComponent("state"))
        var records = IndexRecords()
        records.spill(into: root.path + "/state/tmp", bufferSize: 256)
        for n in 0..<50 { records["s\(n)"] = Self.record(n) }
        let spill = try #require(records.spilled)
        #expect(spill.file == nil)
        #expect(spill.spilledBytes == 0)
        #expect(spill.bufferedBytes > 50 * 100)
        #expect((0..<50).allSatisfy { records["s\($0)"] == Self.record($0) })
    }

    /// A run whose records pass the cache's buffer keeps them in a file of `tmp/` without a
    /// name, which its commands do not inherit; it saves them all, and leaves nothing behind.
    @Test func aRunsSpilledRecordsAreSavedAndItsFileIsGoneAfterIt() throws {
        let steps = (0..<600).map {
            #"{"id": "s\#($0)", "kind": "file", "op": "write", "path": "out/\#($0).txt", "content": "\#($0)", "cache": true}"#
        }
        // After the 600 steps are recorded: what files procflow holds open, and the step's own.
        let probe = """
            {"id": "probe", "kind": "shell", "dependsOn": [\((0..<600).map { "\"s\($0)\"" }.joined(separator: ", "))],
             "run": "ls -l /proc/$PPID/fd > parent-fds.txt && ls -l /proc/self/fd > own-fds.txt",
             "generates": ["parent-fds.txt", "own-fds.txt"]}
            """
        let fixture = try WorkflowFixture(
            #"{"procedures": [\#(steps.joined(separator: ",\n")), \#(probe)]}"#)
        defer { fixture.remove() }
        let first = try fixture.run()
        #expect(first.status == 0, "\(first.stderr)")
        let temporary = fixture.directory.path + "/.procflow/tmp"
        let parent = try String(
            contentsOfFile: fixture.directory.path + "/parent-fds.txt", encoding: .utf8)
        let spilled = parent.split(separator: "\n").filter { $0.contains(temporary + "/") }
        #expect(spilled.count == 1, "\(parent)")
        #expect(spilled.first?.hasSuffix("(deleted)") == true, "\(parent)")
        let own = try String(
            contentsOfFile: fixture.directory.path + "/own-fds.txt", encoding: .utf8)
        #expect(!own.contains(temporary), "\(own)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
        // The snapshot of the run's files is gone: the index alone says the steps are done.
        for name in try FileManager.default.contentsOfDirectory(
            atPath: fixture.directory.path + "/.procflow") where name.hasSuffix(".uptodate")
        {
            try FileManager.default.removeItem(
                atPath: fixture.directory.path + "/.procflow/" + name)
        }
        let second = try fixture.run()
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.hasPrefix("procflow: 601 steps up to date ("), "\(second.stdout)")
    }
}

import Foundation
import Testing

@testable import Procflow

@Suite("State files")
struct StateFileTests {

    static func sampleIndex() -> StateIndex {
        var index = StateIndex()
        index.storeSize = 1234
        let status = FileStatus(size: 3, modified: 11, changed: 12, inode: 13, mode: 0o100644)
        index.steps["compile"] = StepRecord(
            definition: SHA256.hash(Array("a".utf8)), environment: SHA256.hash([]),
            directory: "/work", inputs: [.init(name: "input", digest: SHA256.hash([1]))],
            sources: [
                .init(path: "/work/a.c", digest: SHA256.hash([2]), status: status),
                .init(path: "/work/gone.h", digest: nil),
            ],
            discovered: [.init(path: "/work/a.h", digest: SHA256.hash([3]))],
            outputs: [
                .init(
                    path: "/work/a.o", digest: SHA256.hash([4]), permissions: 0o755, status: status)
            ],
            value: Array("{\"n\":1}".utf8))
        return index
    }

    static func sampleSnapshot(settledSteps: [(id: String, value: JSONValue)]?) -> UpToDateSnapshot
    {
        let status = FileStatus(size: 3, modified: 11, changed: 12, inode: 13, mode: 0o100644)
        return UpToDateSnapshot(
            key: .init(workflow: "/work/build.json", overrides: ["MODE=fast"], only: nil),
            digest: SHA256.hash(Array("{}".utf8)), workflowStatus: status, indexStatus: status,
            name: "build", steps: [], files: [("/work/sub.json", status), ("/work/gone", nil)],
            settledSteps: settledSteps)
    }

    @Test func aSnapshotOfSettledStepsReadsBackAsWritten() throws {
        for settled: [(id: String, value: JSONValue)]? in [
            nil, [],
            [("gen", .string("v1\n")), ("n", .object(["a": .array([.number(1.5), .null])]))],
        ] {
            let snapshot = Self.sampleSnapshot(settledSteps: settled)
            let decoded = try UpToDateSnapshot(decoding: snapshot.encoded())
            #expect(decoded == snapshot)
            #expect(decoded.settledSteps?.map(\.id) == settled?.map(\.id))
        }
        // A snapshot that ran nothing is not one of settled steps.
        #expect(Self.sampleSnapshot(settledSteps: nil) != Self.sampleSnapshot(settledSteps: []))
    }

    @Test func aSnapshotIsOfTheWorkflowItWasTakenOfAndOfItsOtherFiles() {
        let snapshot = Self.sampleSnapshot(settledSteps: [])
        let status = snapshot.files[0].status!
        var touched = status
        touched.changed += 1
        let bytes = WorkflowRead(Array("{}".utf8))
        #expect(snapshot.isOf(workflow: bytes, otherFiles: [("/work/sub.json", status)]))
        // Edited between the check and the reading.
        #expect(!snapshot.isOf(workflow: WorkflowRead(Array("{ }".utf8)), otherFiles: []))
        #expect(!snapshot.isOf(workflow: bytes, otherFiles: [("/work/sub.json", touched)]))
        // A file it did not look at, or one it found missing.
        #expect(!snapshot.isOf(workflow: bytes, otherFiles: [("/work/new.json", status)]))
        #expect(!snapshot.isOf(workflow: bytes, otherFiles: [("/work/gone", status)]))
    }

    @Test func aLargeWorkflowIsKeptAsItsDigestAndASmallOneAsItsBytes() {
        let small = Array(repeating: UInt8(ascii: " "), count: WorkflowRead.largestHeld)
        let large = small + [UInt8(ascii: " ")]
        guard case .bytes(let held) = WorkflowRead(small) else {
            Issue.record("a file of 1 MiB is kept as its bytes")
            return
        }
        #expect(held == small)
        #expect(WorkflowRead(small).digest == SHA256.hash(small))
        guard case .digest(let digest) = WorkflowRead(large) else {
            Issue.record("a file over 1 MiB is kept as its digest")
            return
        }
        #expect(digest == SHA256.hash(large))
    }

    /// A run lets go of the bytes of a workflow file over 1 MiB once it is loaded: its offsets
    /// then have no line and column, and no plan is written with its content missing; the
    /// smaller files keep theirs.
    @Test func aSourceMapLetsGoOfItsLargeFilesOnly() {
        let sources = SourceMap()
        let large = Array("{\n".utf8) + Array(repeating: UInt8(ascii: " "), count: 2_000) + [125]
        let small = Array("{\n  }".utf8)
        _ = sources.add("flow.json", large)
        let base = sources.add("part.json", small)
        #expect(sources.locate(2).location == SourceLocation(line: 2, column: 1))
        sources.letGoOfLargeFiles(over: 1_000)
        #expect(sources.contents.map(\.bytes) == [nil, small])
        #expect(sources.locate(2).file == "flow.json")
        #expect(sources.locate(2).location == nil)
        #expect(sources.locate(base + 4).location == SourceLocation(line: 2, column: 3))
        #expect(sources.names == ["flow.json", "part.json"])
    }

    /// Records of every shape: passing over one (``StepRecord/skip(_:)``, what the index does
    /// until a record is asked for) takes the bytes reading it takes, and counts its files.
    @Test func passingOverARecordTakesWhatReadingItTakes() throws {
        let base = Self.sampleIndex().steps["compile"]!
        var shapes = [base]
        var empty = base
        (empty.inputs, empty.sources, empty.discovered, empty.outputs, empty.value) =
            ([], [], [], [], [])
        shapes.append(empty)
        var wide = base
        wide.sources += (0..<40).map {
            .init(path: "/work/src/\($0).c", digest: $0 % 3 == 0 ? nil : SHA256.hash([UInt8($0)]))
        }
        wide.outputs += wide.outputs
        wide.environmentEntries = [.init(name: "env CC", digest: SHA256.hash([9]))]
        wide.value = Array(String(repeating: "é", count: 300).utf8)
        shapes.append(wide)
        for record in shapes {
            var writer = BinaryWriter()
            record.write(to: &writer)
            writer.write(UInt32(0xfeed))
            let bytes = writer.finished()
            let (read, passed, files) = try bytes.withUnsafeBytes { buffer in
                var reading = BinaryReader(buffer)
                let read = try StepRecord(from: &reading)
                var passing = BinaryReader(buffer)
                let files = try StepRecord.skip(&passing)
                // Both stop at the same byte: the marker after the record comes next.
                #expect(try reading.uint32() == 0xfeed)
                #expect(try passing.uint32() == 0xfeed)
                return (read, passing.isAtEnd, files)
            }
            #expect(read == record)
            #expect(passed)
            #expect(files == record.sources.count + record.discovered.count + record.outputs.count)
        }
    }

    /// An index read from its file makes a record when it is asked for, the same each time
    /// and kept made by ``IndexRecords/record(_:)``; appended entries replace and remove.
    @Test func anIndexReadsEachRecordWhenAskedFor() throws {
        var index = Self.sampleIndex()
        var other = index.steps["compile"]!
        other.value = Array("2".utf8)
        index.steps["link"] = other
        let base = index.encoded()
        var changed = other
        changed.value = Array("3".utf8)
        let appended =
            base
            + StateIndex.entry([("link", changed), ("compile", nil)], stored: 5)
        var read = try StateIndex(decoding: appended)
        #expect(read.storeSize == index.storeSize + 5)
        #expect(read.steps.keys == ["link"])
        #expect(read.steps["compile"] == nil)
        #expect(read.steps["link"] == changed)
        #expect(read.steps.record("link") == changed)
        #expect(read.steps.record("link") == changed)
        // Two sources, a discovered file and an output in each of three records read.
        #expect(read.steps.namedFiles == 3 * 4)
        let whole = try StateIndex(decoding: base)
        #expect(whole.steps == index.steps)
        #expect(whole.steps.filter(ids: { $0 == "compile" }).map(\.key) == ["compile"])
    }

    /// An entry made from ids, each record asked for as it is written, is the entry made from
    /// the records themselves: a run's spilled records are made one at a time for it.
    @Test func anEntryAsksForEachRecordOnceInOrder() throws {
        let record = Self.sampleIndex().steps["compile"]!
        var other = record
        other.value = Array("2".utf8)
        var asked: [String] = []
        let entry = StateIndex.entry(["a", "b", "c"], stored: 7) { id in
            asked.append(id)
            return id == "b" ? nil : (id == "a" ? record : other)
        }
        #expect(asked == ["a", "b", "c"])
        #expect(entry == StateIndex.entry([("a", record), ("b", nil), ("c", other)], stored: 7))
        var base = StateIndex()
        base.steps["b"] = record
        let read = try StateIndex(decoding: base.encoded() + entry)
        #expect(read.steps.keys.sorted() == ["a", "c"])
        #expect(read.steps["c"] == other)
    }

    /// The file's bytes are let go of once every record read from it is made or replaced,
    /// not while the file is read: an entry that removes the last record may be followed by
    /// one that adds another.
    @Test func anIndexLetsGoOfItsFileOnceEveryRecordIsMade() throws {
        let record = Self.sampleIndex().steps["compile"]!
        var base = StateIndex()
        base.steps["a"] = record
        var other = record
        other.value = Array("2".utf8)
        let bytes =
            base.encoded() + StateIndex.entry([("a", nil)], stored: 0)
            + StateIndex.entry([("b", other), ("c", record)], stored: 0)
        var read = try StateIndex(decoding: bytes)
        #expect(read.steps.keys.sorted() == ["b", "c"])
        #expect(read.steps.holdsFile)
        #expect(read.steps.record("b") == other)
        #expect(read.steps.holdsFile)
        read.steps["c"] = other
        #expect(!read.steps.holdsFile)
        #expect(read.steps["b"] == other)
        #expect(read.steps.record("b") == other)
        #expect(read.steps["c"] == other)
        // Every record made at once, for a run that asks for most of them.
        var ahead = try StateIndex(decoding: bytes)
        ahead.steps.makeEveryRecord()
        #expect(!ahead.steps.holdsFile)
        #expect(ahead.steps.keys.sorted() == ["b", "c"])
        #expect(ahead.steps["b"] == other)
        #expect(ahead.steps["c"] == record)
    }

    @Test func anIndexReadsBackAsWritten() throws {
        let index = Self.sampleIndex()
        let decoded = try StateIndex(decoding: index.encoded())
        #expect(decoded.steps == index.steps)
        #expect(decoded.storeSize == 1234)
    }

    /// The checksum as the files of format 2 and 3 define it, taken whole.
    private static func definedChecksum(_ bytes: [UInt8]) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ (UInt64(bytes.count) &* multiplier)
        var index = 0
        while index + 8 <= bytes.count {
            var word: UInt64 = 0
            for byte in 0..<8 { word |= UInt64(bytes[index + byte]) << (8 * UInt64(byte)) }
            let mixed = hash ^ (word &* multiplier)
            hash = (mixed &<< 29 | mixed &>> 35) &* 0xBF58_476D_1CE4_E5B9
            index += 8
        }
        while index < bytes.count {
            hash = (hash ^ UInt64(bytes[index])) &* 0x100_0000_01B3
            index += 1
        }
        hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
        hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
        return hash ^ (hash >> 31)
    }

    @Test func aChecksumTakenInPiecesIsTheChecksumOfTheWhole() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 100, 1000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let whole = bytes.withUnsafeBytes { Checksum.of($0) }
            #expect(whole == Self.definedChecksum(bytes), "\(length) bytes")
            for _ in 0..<20 {
                // Cut at random places, into pieces of any length, empty ones too.
                var cuts = (0..<Int.random(in: 0...5)).map { _ in Int.random(in: 0...length) }
                cuts = [0] + cuts.sorted() + [length]
                var stream = Checksum.Stream(length: length)
                for (start, end) in zip(cuts, cuts.dropFirst()) {
                    bytes[start..<end].withUnsafeBytes { stream.add($0) }
                }
                #expect(stream.finished() == whole, "\(length) bytes cut at \(cuts)")
            }
        }
    }

    /// What `write` wrote to a new file in pieces of each of `pieces` bytes, each with the
    /// length it said it wrote.
    private static func writtenInPieces(
        _ pieces: [Int], _ write: (Int32, Int) throws(POSIXIO.Failure) -> Int
    ) throws -> [(piece: Int, bytes: [UInt8], length: Int)] {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        return try pieces.map { piece in
            let path = root.path + "/file-\(piece)"
            var length = 0
            try POSIXIO.writeAtomically(to: path, sync: false) {
                descriptor throws(POSIXIO.Failure) in
                length = try write(descriptor, piece)
            }
            return (piece, try POSIXIO.readFile(path).get(), length)
        }
    }

    @Test func anIndexWrittenInPiecesIsTheIndexEncodedWhole() throws {
        var index = Self.sampleIndex()
        let record = index.steps["compile"]!
        for number in 0..<300 {
            var other = record
            other.value = Array(String(repeating: "v", count: number % 37).utf8)
            index.steps["step \(number)"] = other
        }
        let whole = index.encoded()
        for (piece, written, length) in try Self.writtenInPieces(
            [1, 7, 100, 4096, 1 << 20],
            { descriptor, piece throws(POSIXIO.Failure) in
                try index.write(to: descriptor, piece: piece)
            })
        {
            #expect(written == whole, "pieces of \(piece) bytes")
            #expect(length == whole.count)
            let decoded = try StateIndex.decoding(written)
            #expect(decoded.index.steps == index.steps)
            #expect(decoded.layout == StateFile.Layout(baseLength: whole.count, isAppendable: true))
        }
    }

    @Test func aSnapshotWrittenInPiecesIsTheSnapshotEncodedWhole() throws {
        let settled = (0..<200).map { (id: "step-\($0)", value: JSONValue.string("\($0)")) }
        var snapshot = Self.sampleSnapshot(settledSteps: settled)
        snapshot.filesOfSettledSteps = (0..<200).map { [UInt32($0 % 2)] }
        let whole = snapshot.encoded()
        for (piece, written, length) in try Self.writtenInPieces(
            [1, 10, 333, 1 << 20],
            { descriptor, piece throws(POSIXIO.Failure) in
                try snapshot.write(to: descriptor, piece: piece)
            })
        {
            #expect(written == whole, "pieces of \(piece) bytes")
            #expect(length == whole.count)
            let read = try UpToDateSnapshot(decoding: written)
            #expect(read.settledSteps?.map(\.id) == settled.map(\.id))
        }
    }

    @Test func everyFlippedByteIsNoticed() {
        let bytes = Self.sampleIndex().encoded()
        for position in bytes.indices {
            var damaged = bytes
            damaged[position] ^= 0x40
            #expect(throws: StateFile.Problem.self, "byte \(position)") {
                try StateIndex(decoding: damaged)
            }
        }
    }

    @Test func truncatedAndForeignFilesAreRefused() {
        let bytes = Self.sampleIndex().encoded()
        for length in [0, 7, 19, 20, bytes.count - 1] {
            #expect(throws: StateFile.Problem.self) {
                try StateIndex(decoding: Array(bytes.prefix(length)))
            }
        }
        var foreign = bytes
        foreign[8] = 9  // the version
        #expect(throws: StateFile.Problem.foreignVersion(9, reads: 3)) {
            try StateIndex(decoding: foreign)
        }
    }

    @Test func aRecordsKeyIgnoresWhatTheRunFoundAfterwards() {
        var record = Self.sampleIndex().steps["compile"]!
        let key = record.key
        record.discovered = []
        record.outputs = []
        record.value = []
        record.sources[0].status = nil
        #expect(record.key == key)
        record.sources[0].digest = SHA256.hash([9])
        #expect(record.key != key)
    }
}

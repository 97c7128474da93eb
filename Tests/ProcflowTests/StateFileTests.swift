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
        let bytes = Array("{}".utf8)
        #expect(snapshot.isOf(workflow: bytes, otherFiles: [("/work/sub.json", status)]))
        // Edited between the check and the reading.
        #expect(!snapshot.isOf(workflow: Array("{ }".utf8), otherFiles: []))
        #expect(!snapshot.isOf(workflow: bytes, otherFiles: [("/work/sub.json", touched)]))
        // A file it did not look at, or one it found missing.
        #expect(!snapshot.isOf(workflow: bytes, otherFiles: [("/work/new.json", status)]))
        #expect(!snapshot.isOf(workflow: bytes, otherFiles: [("/work/gone", status)]))
    }

    @Test func anIndexReadsBackAsWritten() throws {
        let index = Self.sampleIndex()
        let decoded = try StateIndex(decoding: index.encoded())
        #expect(decoded.steps == index.steps)
        #expect(decoded.storeSize == 1234)
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

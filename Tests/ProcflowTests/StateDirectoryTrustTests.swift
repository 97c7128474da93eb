import Foundation
import Testing

@testable import Procflow

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The state directory keeps what it holds to its user, keeps apart workflows of one name,
/// and `cache clean` takes all of it away.
@Suite("State directory trust")
struct StateDirectoryTrustTests {

    /// The permission bits of `name` in the fixture's directory.
    static func mode(_ fixture: WorkflowFixture, _ name: String) -> UInt32? {
        var status = stat()
        guard stat(fixture.directory.appendingPathComponent(name).path, &status) == 0 else {
            return nil
        }
        return UInt32(status.st_mode & 0o7777)
    }

    static let keyWorkflow = """
        {"procedures": [{"id": "key", "kind": "shell",
          "run": "echo key >> runs.log; umask 077; printf SECRET > id_key; umask 022; printf public > notes.txt",
          "generates": ["id_key", "notes.txt"]}]}
        """

    @Test func everythingInTheStateDirectoryIsPrivateAndRestoredFilesKeepTheirModes() throws {
        let fixture = try WorkflowFixture(Self.keyWorkflow)
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        #expect(Self.mode(fixture, ".procflow") == 0o700)
        #expect(Self.mode(fixture, ".procflow/objects") == 0o700)
        let objects = try FileManager.default.contentsOfDirectory(
            atPath: fixture.directory.appendingPathComponent(".procflow/objects").path)
        #expect(objects.count == 2)
        for object in objects {
            #expect(Self.mode(fixture, ".procflow/objects/" + object) == 0o600)
        }
        let index = try #require(fixture.stateFile("state"))
        #expect(Self.mode(fixture, index) == 0o600)
        // Put back from the store, each with the mode it was made with.
        try fixture.delete("id_key")
        try fixture.delete("notes.txt")
        let second = try fixture.runSteps()
        #expect(second.ran == [])
        #expect(fixture.contents("id_key") == "SECRET")
        #expect(Self.mode(fixture, "id_key") == 0o600)
        #expect(Self.mode(fixture, "notes.txt") == 0o644)
    }

    @Test func aReadableStateDirectoryOfThisUserIsMadePrivate() throws {
        let fixture = try WorkflowFixture(Self.keyWorkflow)
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        chmod(fixture.directory.appendingPathComponent(".procflow").path, 0o755)
        #expect(try fixture.runSteps().ran == [])
        #expect(Self.mode(fixture, ".procflow") == 0o700)
    }

    @Test func aStateDirectoryOthersCanWriteInIsNotUsed() throws {
        let fixture = try WorkflowFixture(Self.keyWorkflow)
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        let state = fixture.directory.appendingPathComponent(".procflow").path
        chmod(state, 0o777)
        let index = try #require(fixture.stateFile("state"))
        let before = try Data(contentsOf: fixture.directory.appendingPathComponent(index))
        try fixture.delete("runs.log")
        let result = try fixture.run()
        #expect(result.status == 0)
        #expect(result.stderr.contains("not using the state directory \(state)"))
        #expect(result.stderr.contains("other users can write in it (mode 777)"))
        #expect(fixture.ran == ["key"])
        // Neither read nor written.
        #expect(try Data(contentsOf: fixture.directory.appendingPathComponent(index)) == before)
        #expect(Self.mode(fixture, ".procflow") == 0o777)
    }

    @Test(.enabled(if: geteuid() == 0, "changing a directory's owner needs root"))
    func aStateDirectoryOfAnotherUserIsNotUsed() throws {
        let fixture = try WorkflowFixture(Self.keyWorkflow)
        defer { fixture.remove() }
        _ = try fixture.runSteps()
        let state = fixture.directory.appendingPathComponent(".procflow").path
        #expect(chown(state, 65534, 65534) == 0)
        try fixture.delete("runs.log")
        let result = try fixture.run()
        #expect(result.status == 0)
        #expect(result.stderr.contains("it belongs to another user (uid 65534)"))
        #expect(fixture.ran == ["key"])
    }

    @Test func twoWorkflowsOfOneNameShareAStateDirectory() throws {
        let fixture = try WorkflowFixture("{}")
        defer { fixture.remove() }
        for (folder, id) in [("a", "compile"), ("b", "link")] {
            try fixture.write("\(folder)/src.txt", folder)
            try fixture.write(
                "\(folder)/build.json",
                #"{"procedures": [{"id": "\#(id)", "kind": "shell", "run": "echo \#(id) >> ../runs.log; cp src.txt out.txt", "sources": ["src.txt"], "generates": ["out.txt"]}]}"#
            )
        }
        let state = fixture.directory.appendingPathComponent("state").path
        func run(_ folder: String) throws {
            let result = try runProcflow(
                ["run", "\(folder)/build.json", "--state-dir", state], in: fixture.directory)
            #expect(result.status == 0, "\(result.stderr)")
        }
        for _ in 0..<2 {
            try run("a")
            try run("b")
        }
        #expect(fixture.ran == ["compile", "link"])
        let indexes = try FileManager.default.contentsOfDirectory(atPath: state).filter {
            $0.hasSuffix(".state")
        }
        #expect(indexes.count == 2)
        #expect(indexes.allSatisfy { $0.hasPrefix("build.json-") })
    }

    @Test func cacheCleanRemovesTheUpToDateSnapshotToo() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "x", "kind": "shell", "run": "cp in.txt out.txt", "sources": ["in.txt"], "generates": ["out.txt"]}]}"#
        )
        defer { fixture.remove() }
        try fixture.write("in.txt", "x\n")
        _ = try fixture.runSteps()
        // Statuses are trusted once files are older than the racy window.
        Thread.sleep(forTimeInterval: 1.2)
        _ = try fixture.runSteps()
        #expect(fixture.stateFile("uptodate") != nil)
        let result = try runProcflow(["cache", "clean", "flow.json"], in: fixture.directory)
        #expect(result.status == 0)
        #expect(!fixture.exists(".procflow"))
    }
}

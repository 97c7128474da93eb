import Foundation
import Testing

@testable import Procflow

/// Includes nest no deeper than one file may (256 levels of arrays and objects, an included
/// file counted from the entry that names it), and loading a workflow reads at most 10,000
/// files and 64 MiB, each file counted every time it is read: past either, a located error in
/// bounded time, never a crash.
@Suite("Loading limits")
struct LoadingLimitTests {
    /// `count` files `i0.json` … each including the next, and `chain.json` including the
    /// first, in a fresh directory.
    static func chain(_ count: Int) throws -> URL {
        let directory = try temporaryDirectory()
        for index in 0..<count {
            let include =
                index + 1 < count
                ? #""include": [{"path": "i\#(index + 1).json", "as": "n"}], "# : ""
            try Data(
                #"{\#(include)"procedures": [{"id": "x", "kind": "shell", "run": "true"}]}"#.utf8
            ).write(to: directory.appendingPathComponent("i\(index).json"))
        }
        try Data(
            #"{"include": [{"path": "i0.json", "as": "n"}], "procedures": [{"id": "top", "kind": "shell", "run": "true"}]}"#
                .utf8
        ).write(to: directory.appendingPathComponent("chain.json"))
        return directory
    }

    /// What each command that loads a workflow gives for `chain.json` in `directory`.
    static func everyCommand(in directory: URL) throws -> [(command: String, CommandResult)] {
        let commands = [
            ["validate"], ["graph"], ["list"], ["export", "--to", "argo", "--image", "x"], ["run"],
        ]
        return try commands.map { command in
            let arguments = [command[0], "chain.json"] + command.dropFirst()
            return (command[0], try runProcflow(arguments, in: directory, timeout: 60))
        }
    }

    @Test func aChainOfIncludesTooDeepIsALocatedErrorInEveryCommand() throws {
        // A thousand files deep crashed every command (a stack overflow, exit 139).
        let directory = try Self.chain(1_000)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (command, result) in try Self.everyCommand(in: directory) {
            #expect(result.status == 2, "\(command)")
            #expect(
                result.stderr.withoutSnippets == """
                    i83.json:1:14: error: /include/0/path: the included file i84.json nests too deep (at i84.json:1:13): included files count from where they are included, and a workflow nests at most 256 levels of arrays and objects (chain.json -> i0.json -> i1.json -> … 80 more … -> i82.json -> i83.json -> i84.json)
                    chain.json: 1 error

                    """, "\(command)")
        }
    }

    @Test func theDeepestChainThatFitsRunsInEveryCommand() throws {
        let directory = try Self.chain(84)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (command, result) in try Self.everyCommand(in: directory) {
            #expect(result.status == 0, "\(command): \(result.stderr.prefix(300))")
        }
    }

    @Test func anIncludedFileNestsFromWhereItIsIncluded() throws {
        // 255 levels are fine in a file of its own; included, its levels add to the entry's.
        let deep = String(repeating: "[", count: 251) + String(repeating: "]", count: 251)
        let fixture = try IncludeTests.fixture(
            #"{"include": [{"path": "deep.json", "as": "d"}], "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#,
            [
                "deep.json":
                    #"{"procedures": [{"id": "x", "kind": "shell", "run": "true", "forEach": {"in": \#(deep)}}]}"#
            ])
        defer { fixture.remove() }
        let alone = try runProcflow(["validate", "deep.json"], in: fixture.directory)
        #expect(alone.status == 0, "\(alone.stderr)")
        let result = try runProcflow(["validate", fixture.file], in: fixture.directory)
        #expect(result.status == 2)
        #expect(
            result.stderr.withoutSnippets == """
                flow.json:1:14: error: /include/0/path: the included file deep.json nests too deep (at deep.json:1:328): included files count from where they are included, and a workflow nests at most 256 levels of arrays and objects (flow.json -> deep.json)
                flow.json: 1 error

                """)
    }

    @Test func includesThatDoubleAtEachLevelStopAtTheFileLimit() throws {
        // Each file includes the next twice: 2^30 files to read.
        var files: [String: String] = [:]
        for index in 0..<30 {
            files["d\(index).json"] =
                #"{"include": [{"path": "d\#(index + 1).json", "as": "a"}, {"path": "d\#(index + 1).json", "as": "b"}], "procedures": [{"id": "x", "kind": "shell", "run": "true"}]}"#
        }
        files["d30.json"] = #"{"procedures": [{"id": "x", "kind": "shell", "run": "true"}]}"#
        let fixture = try IncludeTests.fixture(
            #"{"include": [{"path": "d0.json", "as": "d"}], "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#,
            files)
        defer { fixture.remove() }
        let result = try runProcflow(
            ["validate", fixture.file], in: fixture.directory, timeout: 60)
        #expect(result.status == 2)
        #expect(
            result.stderr.withoutSnippets.hasSuffix(
                "the workflow reads 10,001 files (each file counted every time it is included or read); a workflow reads at most 10,000\nflow.json: 1 error\n"
            ), "\(result.stderr.prefix(500))")
    }

    @Test func filesReadOverAndOverStopAtTheByteLimit() throws {
        // Four reads of a 16 MiB file (not UTF-8: each read is cheap to reject) pass 64 MiB.
        let fixture = try WorkflowFixture(
            #"{"dotenv": ["big.env", "big.env", "big.env", "big.env", "big.env"], "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#
        )
        defer { fixture.remove() }
        try Data(repeating: 0xFF, count: Workflow.maximumFileSize).write(
            to: fixture.directory.appendingPathComponent("big.env"))
        let result = try runProcflow(
            ["validate", fixture.file], in: fixture.directory, timeout: 60)
        #expect(result.status == 2)
        #expect(
            result.stderr.withoutSnippets == """
                flow.json:1:13: error: /dotenv/0: the dotenv file big.env is not UTF-8 text
                flow.json:1:24: error: /dotenv/1: the dotenv file big.env is not UTF-8 text
                flow.json:1:35: error: /dotenv/2: the dotenv file big.env is not UTF-8 text
                flow.json:1:46: error: /dotenv/3: with the dotenv file big.env, the workflow reads 64.1 MiB (each file counted every time it is included or read); a workflow reads at most 64 MiB
                flow.json: 4 errors

                """)
    }

    @Test func aDotenvFileListedOverAndOverStopsAtTheFileLimit() throws {
        let entries = Array(repeating: #""a.env""#, count: 10_001).joined(separator: ",")
        let fixture = try WorkflowFixture(
            #"{"dotenv": [\#(entries)], "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#
        )
        defer { fixture.remove() }
        try Data("A=1\n".utf8).write(to: fixture.directory.appendingPathComponent("a.env"))
        let result = try runProcflow(
            ["validate", fixture.file], in: fixture.directory, timeout: 60)
        #expect(result.status == 2)
        #expect(
            result.stderr.withoutSnippets
                == "flow.json:1:80005: error: /dotenv/9999: with the dotenv file a.env, the workflow reads 10,001 files (each file counted every time it is included or read); a workflow reads at most 10,000\nflow.json: 1 error\n"
        )
    }
}

import Foundation
import Testing

@testable import Procflow

/// The remote cache against a real nginx (Bazel's HTTP cache protocol): two checkouts in
/// different directories share their work, a read-only client never publishes, a server that
/// stops is one warning. Faults nginx will not make on demand come from a fault server.
@Suite("Remote cache", .serialized)
struct RemoteCacheTests {

    /// A small C project: three units (u1 alone includes h1.h; all include common.h), a
    /// library linked from them. Commands note what ran in runs.log.
    static func project(_ directory: URL) throws {
        let files = [
            "src/common.h": "#define BASE 1\n",
            "src/h1.h": "#define ONE 1\n",
            "src/u1.c":
                "#include \"common.h\"\n#include \"h1.h\"\nint u1(void){return BASE+ONE;}\n",
            "src/u2.c": "#include \"common.h\"\nint u2(void){return BASE+2;}\n",
            "src/u3.c": "#include \"common.h\"\nint u3(void){return BASE+3;}\n",
            "build.json": """
            {"name": "c", "cacheKey": [{"command": "cc --version"}], "procedures": [
              {"id": "cc", "kind": "shell", "forEach": {"in": ["u1", "u2", "u3"]},
               "run": "echo cc-$item >> runs.log; mkdir -p obj; cc -MMD -MF obj/$item.d -c src/$item.c -o obj/$item.o",
               "sources": ["src/${item}.c"], "depfile": "obj/${item}.d", "generates": ["obj/${item}.o"]},
              {"id": "link", "kind": "shell", "dependsOn": ["cc"],
               "run": "echo link >> runs.log; cc -shared -o lib.so obj/u1.o obj/u2.o obj/u3.o",
               "sources": ["obj/u1.o", "obj/u2.o", "obj/u3.o"], "generates": ["lib.so"]}
            ]}
            """,
        ]
        for (name, text) in files {
            let url = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    /// Runs the project in `directory` with `arguments`; what ran (runs.log, sorted, then
    /// cleared) and the result.
    static func build(_ directory: URL, _ arguments: [String]) throws -> (
        ran: [String], result: CommandResult
    ) {
        let log = directory.appendingPathComponent("runs.log")
        try? FileManager.default.removeItem(at: log)
        let result = try runProcflow(["run", "build.json"] + arguments, in: directory)
        let ran = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n")
            .map(String.init).sorted()
        return (ran ?? [], result)
    }

    /// The warnings a run printed.
    static func warnings(_ result: CommandResult) -> [String] {
        result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.map(String.init)
    }

    @Test(.enabled(if: NginxCache.runs))
    func twoCheckoutsInDifferentDirectoriesShareTheirWork() throws {
        let nginx = try NginxCache()
        let first = try temporaryDirectory()
        let second = try temporaryDirectory().appendingPathComponent("elsewhere/checkout")
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second.deletingLastPathComponent())
        }
        try Self.project(first)
        try Self.project(second)
        let remote = ["--remote-cache", nginx.url]
        let built = try Self.build(first, remote)
        #expect(built.result.status == 0, "\(built.result.stderr)")
        #expect(built.ran == ["cc-u1", "cc-u2", "cc-u3", "link"])
        #expect(built.result.stderr.contains("4 misses, 4 published"))
        // Another machine: another directory, its own (empty) state; no compiler runs.
        let taken = try Self.build(second, remote)
        #expect(taken.result.status == 0, "\(taken.result.stderr)")
        #expect(taken.ran == [])
        #expect(taken.result.stderr.contains("4 hits, 0 misses"))
        #expect(taken.result.stdout.contains("restored from the remote cache"))
        for file in ["lib.so", "obj/u1.o", "obj/u2.o", "obj/u3.o"] {
            #expect(
                try Data(contentsOf: first.appendingPathComponent(file))
                    == Data(contentsOf: second.appendingPathComponent(file)), "\(file)")
        }
        #expect(Self.warnings(taken.result).isEmpty)
        // A header changed here is a miss for exactly the objects whose depfile names it
        // (and what is built from them).
        try Data("#define ONE 11\n".utf8).write(to: second.appendingPathComponent("src/h1.h"))
        let edited = try Self.build(second, remote)
        #expect(edited.result.status == 0)
        #expect(edited.ran == ["cc-u1", "link"])
    }

    @Test(.enabled(if: NginxCache.runs))
    func aReadOnlyClientTakesButNeverPublishes() throws {
        let nginx = try NginxCache()
        let reader = try temporaryDirectory()
        let writer = try temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: reader)
            try? FileManager.default.removeItem(at: writer)
        }
        try Self.project(reader)
        try Self.project(writer)
        let read = ["--remote-cache", nginx.url, "--remote-cache-mode", "read"]
        let first = try Self.build(reader, read)
        #expect(first.result.status == 0)
        #expect(first.ran == ["cc-u1", "cc-u2", "cc-u3", "link"])
        #expect(nginx.stored == [])
        #expect(try Self.build(writer, ["--remote-cache", nginx.url]).result.status == 0)
        #expect(!nginx.stored.isEmpty)
        // The environment names it too.
        try FileManager.default.removeItem(at: reader.appendingPathComponent(".procflow"))
        let environment = [
            "PROCFLOW_REMOTE_CACHE": nginx.url, "PROCFLOW_REMOTE_CACHE_MODE": "read",
        ]
        let stored = nginx.stored
        let log = reader.appendingPathComponent("runs.log")
        try? FileManager.default.removeItem(at: log)
        let taken = try runProcflow(["run", "build.json"], in: reader, environment: environment)
        #expect(taken.status == 0)
        #expect(!FileManager.default.fileExists(atPath: log.path))
        #expect(nginx.stored == stored)
    }

    @Test(.enabled(if: NginxCache.runs))
    func aServerThatStopsMidRunIsOneWarning() throws {
        let nginx = try NginxCache()
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "first", "kind": "shell", "run": "echo 1 > one.txt", "generates": ["one.txt"]},
              {"id": "stop", "kind": "shell", "dependsOn": ["first"],
               "run": "kill $(cat \(nginx.directory.path)/nginx.pid); while kill -0 $(cat \(nginx.directory.path)/nginx.pid 2>/dev/null) 2>/dev/null; do sleep 0.05; done"},
              {"id": "after", "kind": "shell", "forEach": {"in": ["a", "b", "c"]}, "dependsOn": ["stop"],
               "run": "echo $item > $item.txt", "generates": ["${item}.txt"]}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["--remote-cache", nginx.url])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = Self.warnings(result)
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.contains("the remote cache \(nginx.url) failed") == true)
        #expect(warnings.first?.contains("the run goes on without it") == true)
        for name in ["a", "b", "c"] { #expect(fixture.contents("\(name).txt") == "\(name)\n") }
    }

    /// A step whose record the fault server answers, naming out.txt with `content`.
    static func faultWorkflow() -> String {
        #"{"procedures": [{"id": "s", "kind": "shell", "run": "echo mine > out.txt", "generates": ["out.txt"]}]}"#
    }

    static func record(path: String, content: [UInt8]) -> String {
        let digest = SHA256.hash(content).hex
        return
            #"{"format": "procflow-remote-record", "version": 1, "runs": [{"outputs": [{"path": "\#(path)", "digest": "\#(digest)", "size": \#(content.count), "mode": 420}], "discovered": [], "value": null}]}"#
    }

    @Test(arguments: ["error", "silent", "truncate", "wrong"])
    func aFaultyServerNeverChangesTheResult(mode: String) throws {
        let theirs = Array("theirs\n".utf8)
        let server = try FaultyCache(
            mode: mode, record: Self.record(path: "out.txt", content: theirs))
        let fixture = try WorkflowFixture(Self.faultWorkflow())
        defer { fixture.remove() }
        let started = Date()
        let result = try fixture.run([
            "--remote-cache", "http://user:secret@127.0.0.1:\(server.port)",
            "--remote-cache-timeout", "1", "--remote-cache-header", "Authorization: Bearer hidden",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.contents("out.txt") == "mine\n")
        #expect(Date().timeIntervalSince(started) < 60)
        // The server is named without its credentials, and the header's value never shows.
        #expect(!result.stderr.contains("secret") && !result.stdout.contains("secret"))
        #expect(!result.stderr.contains("hidden") && !result.stdout.contains("hidden"))
        let warnings = Self.warnings(result)
        if mode == "error" || mode == "silent" || mode == "truncate" {
            #expect(warnings.count == 1, "\(warnings)")
            #expect(
                warnings.first?.contains("the remote cache http://127.0.0.1:\(server.port) failed")
                    == true)
        }
    }

    @Test(arguments: ["../escape.txt", "/tmp/procflow-escape.txt", "other.txt", "./out.txt"])
    func aRecordNamingAFileTheStepDoesNotGenerateIsRefused(path: String) throws {
        let theirs = Array("theirs\n".utf8)
        let server = try FaultyCache(
            mode: "serve", record: Self.record(path: path, content: theirs),
            contents: [SHA256.hash(theirs).hex: theirs])
        let fixture = try WorkflowFixture(Self.faultWorkflow())
        defer { fixture.remove() }
        let result = try fixture.run(["--remote-cache", server.url])
        #expect(result.status == 0)
        #expect(fixture.contents("out.txt") == "mine\n")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/procflow-escape.txt"))
        #expect(
            !FileManager.default.fileExists(
                atPath: fixture.directory.deletingLastPathComponent().appendingPathComponent(
                    "escape.txt"
                ).path))
        #expect(Self.warnings(result).contains { $0.contains("a record for s was refused") })
    }

    @Test func aRecordThatWouldWriteThroughASymbolicLinkOutOfTheTreeIsRefused() throws {
        let theirs = Array("theirs\n".utf8)
        let server = try FaultyCache(
            mode: "serve", record: Self.record(path: "out/x.txt", content: theirs),
            contents: [SHA256.hash(theirs).hex: theirs])
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "s", "kind": "shell", "run": "echo mine > out/x.txt", "generates": ["out/x.txt"]}]}"#
        )
        let outside = try temporaryDirectory()
        defer {
            fixture.remove()
            try? FileManager.default.removeItem(at: outside)
        }
        try FileManager.default.createSymbolicLink(
            at: fixture.directory.appendingPathComponent("out"), withDestinationURL: outside)
        let result = try fixture.run(["--remote-cache", server.url])
        #expect(result.status == 0)
        // The step ran (its own command wrote there); what the record named was not put.
        #expect(
            try String(contentsOf: outside.appendingPathComponent("x.txt"), encoding: .utf8)
                == "mine\n")
    }

    @Test(arguments: [
        (
            ["--remote-cache", "ftp://host/cache"],
            "the remote cache URL must be an http:// or https:// URL"
        ),
        (
            ["--remote-cache", "http://h", "--remote-cache-header", "no colon"],
            "is not 'NAME: VALUE'"
        ),
        (["--remote-cache", "http://h", "--remote-cache-mode", "write"], "--remote-cache-mode"),
        (["--remote-cache", "http://h", "--remote-cache-timeout", "0"], "--remote-cache-timeout"),
    ])
    func badSettingsAreUsageErrors(arguments: [String], message: String) throws {
        let fixture = try WorkflowFixture(Self.faultWorkflow())
        defer { fixture.remove() }
        let result = try fixture.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!fixture.exists("out.txt"))
    }
}

import Foundation
import Testing

@testable import Procflow

@Suite("cacheKey commands: how they run")
struct CacheKeyCommandTests {
    private func directory() throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("key-command-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The parent's pid of a process, from the `/proc/PID/stat` text it printed.
    private func parent(inStat output: [UInt8]) -> Int32? {
        let text = String(decoding: output, as: UTF8.self)
        guard let end = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: end)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// Plain words run as a program, without the shell: its parent is procflow.
    @Test func plainWordsRunWithoutTheShell() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["PATH": "/usr/bin:/bin"]
        let (status, output) = CacheKeyValues.run(
            "cat /proc/self/stat", in: directory, environment: environment)
        #expect(status == 0)
        #expect(parent(inStat: output) == getpid())
        // Anything else goes to the shell, which runs it as a child of its own.
        let (_, shell) = CacheKeyValues.run(
            "cat /proc/self/stat # comment", in: directory, environment: environment)
        #expect(parent(inStat: shell).map { $0 != getpid() } == true)
    }

    /// A program run without the shell sees `PWD` as the shell would give it: its directory,
    /// not procflow's.
    @Test func plainWordsSeeTheirDirectoryAsPWD() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["PATH": "/usr/bin:/bin", "PWD": "/somewhere/else"]
        let (status, output) = CacheKeyValues.run(
            "printenv PWD", in: directory, environment: environment)
        #expect(status == 0)
        #expect(String(decoding: output, as: UTF8.self) == directory + "\n")
    }

    /// The program is found in the command's own PATH; one that cannot be started as a
    /// program (a script without `#!`), or is not found, is the shell's, as it was.
    @Test func theCommandsPathAndTheShellsWay() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tools = directory + "/tools"
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        // Written by a child of its own: a file this process held open for writing could be
        // inherited by a command another test spawns meanwhile, and could not be run (ETXTBSY).
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "echo 'echo from the shell' > version && chmod 755 version"]
        writer.currentDirectoryURL = URL(fileURLWithPath: tools)
        try writer.run()
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        let environment = ["PATH": "\(tools):/usr/bin:/bin"]
        let (status, output) = CacheKeyValues.run(
            "version --long", in: directory, environment: environment)
        #expect(status == 0)
        #expect(String(decoding: output, as: UTF8.self) == "from the shell\n")
        let (missing, nothing) = CacheKeyValues.run(
            "no-such-tool-anywhere --version", in: directory, environment: environment)
        #expect(missing == 127)
        #expect(nothing.isEmpty)
        let (exit, _) = CacheKeyValues.run("false", in: directory, environment: environment)
        #expect(exit == 1)
    }
}

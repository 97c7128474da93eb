import Foundation
import Testing

@testable import Procflow

@Suite("cacheKey commands started ahead")
struct KeyCommandsAheadTests {
    /// A directory of its own, with a command that counts its runs in `runs.log`.
    private func setUp() throws -> (directory: String, command: String) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("key-ahead-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        return (directory, "echo ran >> runs.log; echo \"$TOOL\"")
    }

    private func runs(in directory: String) -> Int {
        let text = (try? String(contentsOfFile: directory + "/runs.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").count
    }

    @Test func aRunTakesTheResultStartedAheadOnceAndTheCheckOnlyLooks() throws {
        let (directory, command) = try setUp()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["TOOL": "1.0", "PATH": "/usr/bin:/bin"]
        let direct = CacheKeyValues.commandDigest(
            command, in: directory, environment: environment)
        #expect(runs(in: directory) == 1)
        KeyCommandsAhead.start(command, in: directory, environment: environment)
        // Started twice, run once.
        KeyCommandsAhead.start(command, in: directory, environment: environment)
        let looked = KeyCommandsAhead.digest(
            of: command, in: directory, environment: environment, taking: false)
        let taken = KeyCommandsAhead.digest(
            of: command, in: directory, environment: environment, taking: true)
        #expect(looked == direct)
        #expect(taken == direct)
        #expect(runs(in: directory) == 2)
        // Taken: the next run's need runs it again.
        _ = KeyCommandsAhead.digest(
            of: command, in: directory, environment: environment, taking: true)
        #expect(runs(in: directory) == 3)
    }

    @Test func anotherEnvironmentIsAnotherCommand() throws {
        let (directory, command) = try setUp()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["TOOL": "1.0", "PATH": "/usr/bin:/bin"]
        KeyCommandsAhead.start(command, in: directory, environment: environment)
        var other = environment
        other["TOOL"] = "2.0"
        let digest = KeyCommandsAhead.digest(
            of: command, in: directory, environment: other, taking: true)
        #expect(
            digest == CacheKeyValues.commandDigest(command, in: directory, environment: other))
        KeyCommandsAhead.waitForAll()
        // The one started ahead, and the other environment's twice.
        #expect(runs(in: directory) == 3)
        _ = KeyCommandsAhead.digest(
            of: command, in: directory, environment: environment, taking: true)
        #expect(runs(in: directory) == 3)
    }
}

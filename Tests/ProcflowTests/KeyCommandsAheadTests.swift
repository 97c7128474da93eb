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

    /// A run's `cacheKey` commands (the workflow's and a step's own) start as its state is
    /// opened, before any step is drafted, with the environment the run gives them: the run
    /// then takes their results and runs neither again.
    @Test func aRunsKeyCommandsStartAsItsStateOpensAndItTakesTheirResults() throws {
        let fixture = try WorkflowFixture(
            #"{"env": {"TOOL": "1.0"}, "cacheKey": [{"command": "echo ran >> runs.log; echo \"$TOOL\""}], "procedures": [{"id": "a", "kind": "shell", "run": "true", "cache": true, "cacheKey": [{"command": "echo ran >> own.log"}]}, {"id": "b", "kind": "shell", "run": "true"}]}"#
        )
        defer { fixture.remove() }
        let workflow = try WorkflowLoader.load(path: fixture.directory.path + "/flow.json")
        let session = RunSession(
            settings: .init(
                stateDirectory: StateDirectory(path: fixture.directory.path + "/.procflow"),
                environment: ProcessInfo.processInfo.environment))
        let cache = session.openCache(for: workflow, startingKeyCommandsOf: workflow) { _ in }
        #expect(cache != nil)
        // No runner yet, no step drafted: the commands were started with the state.
        #expect(eventually { fixture.exists("runs.log") && fixture.exists("own.log") })
        // The runner alone, not the session's run: that sweeps the test process's other
        // children as leftovers when it ends.
        let runner = WorkflowRunner(
            workflow: workflow,
            options: .init(environment: session.settings.environment, cache: cache),
            reporters: [])
        #expect(runner.run().result == .succeeded)
        #expect(fixture.contents("runs.log") == "ran\n")
        #expect(fixture.contents("own.log") == "ran\n")
    }

    /// A run of some targets starts the `cacheKey` commands of the steps it runs, not those of
    /// the steps it leaves out, and runs each once.
    @Test func aRunOfATargetStartsOnlyItsStepsKeyCommands() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "true", "cache": true, "cacheKey": [{"command": "echo ran >> a.log"}]}, {"id": "b", "kind": "shell", "run": "true", "cache": true, "cacheKey": [{"command": "echo ran >> b.log"}]}]}"#
        )
        defer { fixture.remove() }
        #expect(try fixture.run(["a"]).status == 0)
        #expect(fixture.contents("a.log") == "ran\n")
        #expect(fixture.contents("b.log") == nil)
        #expect(try fixture.run().status == 0)
        #expect(fixture.contents("a.log") == "ran\nran\n")
        #expect(fixture.contents("b.log") == "ran\n")
    }
}

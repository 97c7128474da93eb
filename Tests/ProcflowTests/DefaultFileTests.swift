import Foundation
import Testing

@testable import Procflow

/// Commands without a file find procflow.json from the current directory up; `procflow init`
/// writes a starter; `-f`, `-j` and `-n` are the short forms people type.
@Suite("The default file, init and short options")
struct DefaultFileTests {
    /// A directory holding `procflow.json` (the starter) and an empty `sub/deeper`.
    static func project() throws -> URL {
        let directory = try temporaryDirectory()
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("sub/deeper"), withIntermediateDirectories: true)
        let result = try runProcflow(["init"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == "wrote procflow.json: run it with 'procflow run', check it with 'procflow validate'\n"
        )
        return directory
    }

    @Test func initWritesAValidCommentedStarterAndNeverOverwrites() throws {
        let directory = try Self.project()
        defer { try? FileManager.default.removeItem(at: directory) }
        let starter = try String(
            contentsOf: directory.appendingPathComponent("procflow.json"), encoding: .utf8)
        #expect(starter == InitCommand.starter)
        #expect(starter.contains("// "))
        let validate = try runProcflow(["validate"], in: directory)
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(
            validate.stdout.hasPrefix("procflow.json: valid workflow \"starter\": 4 procedures"))
        let again = try runProcflow(["init"], in: directory)
        #expect(again.status == 2)
        #expect(
            again.stderr
                == "error: cannot write procflow.json: it exists already, and procflow init does not overwrite a file\n"
        )
        #expect(
            try String(
                contentsOf: directory.appendingPathComponent("procflow.json"), encoding: .utf8)
                == starter)
        let named = try runProcflow(["init", "other.json"], in: directory)
        #expect(named.stdout.hasPrefix("wrote other.json: run it with 'procflow run other.json'"))
    }

    @Test func theFileIsFoundFromADirectoryBelow() throws {
        let directory = try Self.project()
        defer { try? FileManager.default.removeItem(at: directory) }
        let below = directory.appendingPathComponent("sub/deeper")
        let result = try runProcflow(["run", "--no-cache"], in: below, environment: ["CI": ""])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("shout HELLO FROM PROCFLOW"))
        for command in [["list"], ["graph"], ["validate"]] {
            let other = try runProcflow(command, in: below)
            #expect(other.status == 0, "\(command): \(other.stderr)")
        }
    }

    @Test func aWordThatIsNoFileIsATargetOfTheDefaultFile() throws {
        let directory = try Self.project()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try runProcflow(["run", "greet", "--no-cache"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("greet hello from procflow"))
        #expect(!result.stdout.contains("shout"))
        // A name ending .json is a file, even a missing one.
        let missing = try runProcflow(["run", "nope.json"], in: directory)
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("nope.json: error: cannot read the file"))
    }

    @Test func withoutAFileAnywhereTheErrorSaysWhereItLooked() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try runProcflow(["run"], in: directory)
        #expect(result.status == 2)
        let path = directory.standardizedFileURL.path
        #expect(
            result.stderr
                == "error: no workflow file given, and no procflow.json (or procflow.jsonc) in \(path) or any directory above it: name one, or write one with 'procflow init'\nSee 'procflow help run'.\n"
        )
    }

    @Test func shortOptionsAreTheLongOnes() throws {
        let directory = try Self.project()
        defer { try? FileManager.default.removeItem(at: directory) }
        let elsewhere = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let file = directory.appendingPathComponent("procflow.json").path
        // -n: a dry run, which runs nothing; -f names the file; -j2 and -j 2 the limit.
        let dry = try runProcflow(["run", "-n", "-f", file, "shout"], in: elsewhere)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("plan for starter: 2 steps, in order"))
        #expect(!dry.stdout.contains("HELLO"))
        for limit in [["-j2"], ["-j", "2"]] {
            let run = try runProcflow(["run", "--no-cache", "-f", file] + limit, in: elsewhere)
            #expect(run.status == 0, "\(limit): \(run.stderr)")
        }
        let bad = try runProcflow(["run", "-j", "0", "-f", file], in: elsewhere)
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("error: The value '0' is invalid for '--max-concurrent <n>'"))
        // Flags together, and an option after them.
        for together in [["-nv", "-f", file], ["-vnf", file], ["-nj2", "-f", file]] {
            let run = try runProcflow(["run"] + together + ["shout"], in: elsewhere)
            #expect(run.status == 0, "\(together): \(run.stderr)")
            #expect(run.stdout.contains("plan for starter"), "\(together)")
        }
        let unknown = try runProcflow(["run", "-z"], in: elsewhere)
        #expect(unknown.stderr == "error: Unknown option '-z'\nSee 'procflow help run'.\n")
        let unknownAfter = try runProcflow(["run", "-nz"], in: elsewhere)
        #expect(unknownAfter.stderr == "error: Unknown option '-z'\nSee 'procflow help run'.\n")
        let help = try runProcflow(["help", "run"])
        #expect(help.stdout.contains("  -j, --max-concurrent <n>"))
        #expect(help.stdout.contains("  -n, --dry-run"))
        #expect(help.stdout.contains("  -f, --file <file>"))
    }

    @Test func cacheCleanFindsTheDefaultFileOrTakesDashF() throws {
        let directory = try Self.project()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent(".procflow").path
        let deeper = directory.appendingPathComponent("sub/deeper")
        for clean in [["cache", "clean"], ["cache", "clean", "-f", "../../procflow.json"]] {
            #expect(try runProcflow(["run"], in: directory).status == 0)
            #expect(FileManager.default.fileExists(atPath: state))
            let result = try runProcflow(clean, in: deeper)
            #expect(result.status == 0, "\(clean): \(result.stderr)")
            #expect(result.stdout.hasPrefix("removed "), "\(clean): \(result.stdout)")
            #expect(result.stdout.contains(directory.standardizedFileURL.path + "/.procflow"))
            #expect(!FileManager.default.fileExists(atPath: state), "\(clean)")
        }
        let both = try runProcflow(["cache", "clean", "a.json", "-f", "b.json"], in: deeper)
        #expect(both.status == 2)
        #expect(both.stderr.hasPrefix("error: Unexpected argument 'a.json'"))
    }
}

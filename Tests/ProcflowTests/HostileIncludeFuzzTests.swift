import Foundation
import Testing

@testable import Procflow

/// Workflows made from a fixed seed whose includes and dotenv files are hostile: devices,
/// FIFOs, directories, files past 16 MiB, garbage, missing files, cycles, self-includes and
/// chains deeper than a workflow may nest, with forEach matrices whose combinations run from
/// none to more than can be counted. Each must load, or fail with located errors, quickly.
@Suite("Fuzzing includes, dotenv files and matrices")
struct HostileIncludeFuzzTests {
    /// What an include or dotenv entry may name, besides the workflow's own files.
    static let specials = [
        "/dev/zero", "/dev/null", "fifo", "dir", "big.json", "garbage.json", "missing.json",
    ]
    static let dotenvs = [
        #""good.env""#, #""bad.env""#, #""/dev/zero""#, #""fifo""#, #""dir""#, #""big.json""#,
        #""missing.env""#, #"{"path": "missing.env", "optional": true}"#,
    ]

    /// Makes the files entries may name that are not workflows.
    static func makeSpecials(in directory: URL, using random: inout FuzzRandom) throws {
        #expect(mkfifo(directory.appendingPathComponent("fifo").path, 0o600) == 0)
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("dir"), withIntermediateDirectories: true)
        let big = directory.appendingPathComponent("big.json").path
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, off_t(Workflow.maximumFileSize + 1)) == 0)
        let garbage = (0..<512).map { _ in UInt8.random(in: 0...255, using: &random) }
        try Data(garbage).write(to: directory.appendingPathComponent("garbage.json"))
        try Data(garbage).write(to: directory.appendingPathComponent("bad.env"))
        try Data("A=1\nexport B='two'\n".utf8).write(
            to: directory.appendingPathComponent("good.env"))
    }

    /// A matrix of 1 to 34 axes whose lengths make anything from no combination to more
    /// than an Int holds.
    static func matrix(using random: inout FuzzRandom) -> String {
        let axes = (0..<Int.random(in: 1...34, using: &random)).map { axis in
            let length = [0, 1, 1, 2, 3, 10, 60].randomElement(using: &random)!
            return "\"a\(axis % 30)\": [\((0..<length).map(String.init).joined(separator: ","))]"
        }
        return "{\(axes.joined(separator: ", "))}"
    }

    /// File `index` of `count`: a few steps, perhaps a matrix, and includes and dotenv
    /// entries naming other files of the workflow (itself included) or hostile ones. In a
    /// chain, each file includes the next.
    static func file(
        _ index: Int, of count: Int, chain: Bool, using random: inout FuzzRandom
    ) -> String {
        var steps = [#"{"id": "s", "kind": "shell", "run": "true"}"#]
        if Int.random(in: 0..<3, using: &random) == 0 {
            steps.append(
                #"{"id": "m", "kind": "shell", "run": "true", "forEach": {"matrix": \#(matrix(using: &random))}}"#
            )
        }
        var targets: [String] = []
        if chain {
            if index + 1 < count { targets.append("f\(index + 1).json") }
        } else {
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                targets.append(
                    Bool.random(using: &random)
                        ? "f\(Int.random(in: 0..<count, using: &random)).json"
                        : specials.randomElement(using: &random)!)
            }
        }
        let includes = targets.enumerated().map { #"{"path": "\#($1)", "as": "n\#($0)"}"# }
        let dotenv = (0..<Int.random(in: 0...2, using: &random)).map { _ in
            dotenvs.randomElement(using: &random)!
        }
        return
            #"{"include": [\#(includes.joined(separator: ", "))], "dotenv": [\#(dotenv.joined(separator: ", "))], "procedures": [\#(steps.joined(separator: ", "))]}"#
    }

    /// Whether `line` is a located diagnostic: `file:line:column: error: message`.
    static func isLocated(_ line: Substring) -> Bool {
        let parts = line.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
        return parts.count == 4 && Int(parts[1]) != nil && Int(parts[2]) != nil
            && parts[3].hasPrefix(" error: ") && parts[3].count > " error: ".count
    }

    @Test func hostileIncludeTreesLoadOrFailWithLocatedErrorsQuickly() throws {
        var random = FuzzRandom(state: 0x1_C1DE_2026)
        var failures: [String] = []
        var outcomes = (valid: 0, invalid: 0)
        var highest = 0
        for iteration in 0..<40 {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            try Self.makeSpecials(in: directory, using: &random)
            let chain = Int.random(in: 0..<5, using: &random) == 0
            let count =
                chain
                ? Int.random(in: 60...1_200, using: &random)
                : Int.random(in: 1...8, using: &random)
            for index in 0..<count {
                try Data(Self.file(index, of: count, chain: chain, using: &random).utf8).write(
                    to: directory.appendingPathComponent("f\(index).json"))
            }
            // Through the binary, so that a hang or a crash fails this case alone.
            let started = Date()
            let (result, peak) = try runProcflowMeasuringPeak(
                ["validate", "f0.json"], in: directory, timeout: 30)
            let seconds = Date().timeIntervalSince(started)
            highest = max(highest, peak)
            let lines = result.stderr.withoutSnippets.split(separator: "\n")
            switch result.status {
            case 0: outcomes.valid += 1
            case 2 where !lines.isEmpty && lines.dropLast().allSatisfy(Self.isLocated):
                outcomes.invalid += 1
            default:
                failures.append(
                    "iteration \(iteration): \(result.status) \(result.stderr.prefix(300))")
            }
            if seconds > 20 { failures.append("iteration \(iteration) took \(seconds) s") }
        }
        #expect(
            highest < HostileFileTests.memoryLimit, "a run of procflow used \(highest / 1024) KiB")
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(outcomes.valid > 0)
        #expect(outcomes.invalid > 10)
    }
}

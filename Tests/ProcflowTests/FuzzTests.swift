import Foundation
import Testing

@testable import Procflow

/// SplitMix64: a small deterministic generator, so a failing mutation can be replayed.
struct FuzzRandom: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Fuzzing the loader")
struct FuzzTests {
    static let interesting: [[UInt8]] = [
        Array("{".utf8), Array("}".utf8), Array("[".utf8), Array("]".utf8), Array("\"".utf8),
        Array(",".utf8), Array(":".utf8), Array("\\".utf8), Array("null".utf8),
        Array("-0.5e9".utf8),
        Array("\"id\"".utf8), Array("\"kind\"".utf8), Array("\"dependsOn\": [\"x\"]".utf8),
        Array("{\"from\": \"a\"}".utf8), Array("${x}".utf8), [0xFF], [0xC3], [0x00],
        [0xEF, 0xBB, 0xBF],
    ]

    /// One random edit of `bytes`: delete, duplicate, insert, replace or swap a span.
    static func mutate(_ bytes: [UInt8], using random: inout FuzzRandom) -> [UInt8] {
        guard !bytes.isEmpty else { return interesting.randomElement(using: &random)! }
        var bytes = bytes
        let start = Int.random(in: 0..<bytes.count, using: &random)
        let length = min(bytes.count - start, Int.random(in: 1...16, using: &random))
        switch Int.random(in: 0..<5, using: &random) {
        case 0: bytes.removeSubrange(start..<start + length)
        case 1: bytes.insert(contentsOf: bytes[start..<start + length], at: start)
        case 2: bytes.insert(contentsOf: interesting.randomElement(using: &random)!, at: start)
        case 3: bytes[start] = UInt8.random(in: 0...255, using: &random)
        default:
            let other = Int.random(in: 0..<bytes.count, using: &random)
            bytes.swapAt(start, other)
        }
        return bytes
    }

    @Test func mutatedWorkflowsLoadOrFailWithLocatedErrors() throws {
        var seeds: [[UInt8]] = try shippedWorkflows.map {
            Array(try Data(contentsOf: packageRoot.appendingPathComponent("workflows/\($0)")))
        }
        seeds.append(
            Array(try Data(contentsOf: fixtures.appendingPathComponent("graph/workflow.json"))))
        var random = FuzzRandom(state: 0x5EED_2026)
        var failures: [String] = []
        var outcomes = (valid: 0, invalid: 0)
        for iteration in 0..<3_000 {
            var bytes = seeds[iteration % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                bytes = Self.mutate(bytes, using: &random)
            }
            do {
                _ = try WorkflowLoader.load(bytes: bytes, file: "fuzz.json", overrides: [])
                outcomes.valid += 1
            } catch {
                outcomes.invalid += 1
                for diagnostic in error.diagnostics
                where diagnostic.location == nil || diagnostic.message.isEmpty {
                    failures.append("iteration \(iteration): \(diagnostic)")
                }
                if error.diagnostics.isEmpty {
                    failures.append("iteration \(iteration): no diagnostics")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        // The mutations reach both outcomes, so both paths are exercised.
        #expect(outcomes.valid > 0)
        #expect(outcomes.invalid > 1_000)
    }
}

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
            let result = try runProcflow(["validate", "f0.json"], in: directory, timeout: 30)
            let seconds = Date().timeIntervalSince(started)
            let lines = result.stderr.split(separator: "\n")
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
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        #expect(
            usage.ru_maxrss * 1024 < HostileFileTests.memoryLimit,
            "a child used \(usage.ru_maxrss) KiB")
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(outcomes.valid > 0)
        #expect(outcomes.invalid > 10)
    }
}

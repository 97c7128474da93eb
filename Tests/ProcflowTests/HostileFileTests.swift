import Foundation
import Testing

@testable import Procflow

/// Hostile workflow files, made from a fixed seed, through the real binary: `validate`, `graph`
/// and, for the valid ones, `run` with harmless commands. Each must end in time with a
/// sensible status and bounded memory, and never print a control character it read.
@Suite("Hostile files")
struct HostileFileTests {
    /// One generated file and what it is meant to be.
    struct Case: CustomStringConvertible {
        let name: String
        let bytes: [UInt8]
        let valid: Bool

        var description: String { name }
    }

    /// The most memory any run of procflow may use (its largest resident set).
    static let memoryLimit = 1 << 30

    static func cases() -> [Case] {
        var random = FuzzRandom(state: 0xBAD_F11E)
        var cases: [Case] = []
        func text(_ length: Int, from alphabet: [UInt8]) -> String {
            String(
                decoding: (0..<length).map { _ in alphabet.randomElement(using: &random)! },
                as: UTF8.self)
        }
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        // Binary garbage, with and without a JSON start.
        for index in 0..<3 {
            let count = 1 << (10 + 4 * index)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            if index == 1 { bytes.insert(UInt8(ascii: "{"), at: 0) }
            cases.append(Case(name: "binary \(count)", bytes: bytes, valid: false))
        }
        // Nesting: arrays 100,000 deep, and groups nested as deep as the parser allows.
        cases.append(
            Case(
                name: "deep arrays",
                bytes: Array((String(repeating: "[", count: 100_000)).utf8), valid: false))
        var nested = #"{"id": "leaf", "kind": "shell", "run": "true"}"#
        for level in 0..<60 {
            nested = #"{"id": "g\#(level)", "kind": "group", "procedures": [\#(nested)]}"#
        }
        cases.append(Case(name: "deep groups", bytes: Array(workflow(nested).utf8), valid: true))
        // A matrix of 10^9 combinations in a few hundred bytes, and one that overflows.
        for axes in [9, 20] {
            let values = "[" + (0..<10).map(String.init).joined(separator: ", ") + "]"
            let matrix = (0..<axes).map { "\"a\($0)\": \(values)" }.joined(separator: ", ")
            cases.append(
                Case(
                    name: "matrix of 10^\(axes)",
                    bytes: Array(
                        workflow(
                            #"{"id": "m", "kind": "shell", "run": "true", "forEach": {"matrix": {\#(matrix)}}}"#
                        ).utf8), valid: false))
        }
        // Control characters everywhere a file can put them.
        let controls = (0..<32).map { UInt8($0) } + [0x7F, 0x1B, 0x9B]
        var noisy: [String] = []
        for index in 0..<50 {
            let junk = text(8, from: controls + letters)
            let escaped = JSONWriter.string(.string(junk))
            noisy.append(
                #"{"id": \#(escaped), "kind": "shell", "run": "true", "dependsOn": [\#(escaped)], "\#(index)\#(junk.filter(\.isLetter))": 1}"#
            )
        }
        cases.append(
            Case(
                name: "control characters",
                bytes: Array(workflow(noisy.joined(separator: ",")).utf8), valid: false))
        // Long near-miss names, and many unknown references to many steps.
        let long = text(30_000, from: letters)
        cases.append(
            Case(
                name: "long names",
                bytes: Array(
                    workflow(
                        #"{"id": "\#(long)", "kind": "shell", "run": "true"}, {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["\#(long.dropLast())x"]}"#
                    ).utf8), valid: false))
        var many: [String] = []
        for index in 0..<3_000 {
            many.append(
                #"{"id": "step\#(index)", "kind": "shell", "run": "true", "dependsOn": ["stpe\#(index)"], "retyr": 1}"#
            )
        }
        cases.append(
            Case(
                name: "many diagnostics",
                bytes: Array(workflow(many.joined(separator: ",")).utf8), valid: false))
        // Many diagnostics on one long line.
        let selfReferences = (0..<50_000).map { _ in #""rd""# }.joined(separator: ",")
        cases.append(
            Case(
                name: "one long line",
                bytes: Array(
                    workflow(
                        #"{"id": "rd", "kind": "shell", "run": "true", "dependsOn": [\#(selfReferences)]}"#
                    ).utf8), valid: false))
        // Big and valid: thousands of steps wired together, with a large value on a wire.
        var big: [String] = [
            #"{"id": "blob", "kind": "file", "op": "write", "path": "out/blob", "content": "\#(text(1 << 20, from: letters))"}"#,
            #"{"id": "read", "kind": "file", "op": "read", "path": "out/blob", "dependsOn": ["blob"]}"#,
            #"{"id": "sink", "kind": "shell", "run": "wc -c", "input": {"from": "read"}}"#,
        ]
        for index in 0..<2_000 {
            big.append(
                #"{"id": "s\#(index)", "kind": "shell", "argv": ["true"], "description": "\#(text(40, from: letters))"\#(index > 0 ? #", "dependsOn": ["s\#(index / 2)"]"# : "")}"#
            )
        }
        cases.append(
            Case(name: "big", bytes: Array(workflow(big.joined(separator: ",")).utf8), valid: true))
        return cases
    }

    @Test(arguments: cases())
    func aHostileFileIsHandledInBoundedTimeAndMemory(_ hostile: Case) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(hostile.bytes).write(to: directory.appendingPathComponent("hostile.json"))
        var commands = [
            ["validate", "hostile.json"], ["graph", "hostile.json", "--format", "dot"],
        ]
        if hostile.valid { commands.append(["run", "hostile.json", "--output", "grouped"]) }
        for arguments in commands {
            let started = Date()
            let (result, peak) = try runProcflowMeasuringPeak(
                arguments, in: directory, timeout: 60)
            let seconds = Date().timeIntervalSince(started)
            #expect(peak < Self.memoryLimit, "\(arguments[0]) used \(peak / 1024) KiB")
            let expected: Int32 = hostile.valid ? 0 : 2
            #expect(result.status == expected, "\(arguments[0]): \(result.stderr.prefix(300))")
            #expect(seconds < 30, "\(arguments[0]) took \(seconds) s")
            #expect(!result.stderr.contains("\u{1B}"), "\(arguments[0]) printed a raw escape")
            // At most the printed diagnostics, each with its line and carets, "… and N more",
            // and the count.
            let lines = result.stderr.split(separator: "\n").count
            #expect(lines <= 3 * WorkflowErrors.printedLimit + 2)
            #expect(
                result.stderr.withoutSnippets.split(separator: "\n").count <= WorkflowErrors
                    .printedLimit + 2)
        }
    }
}

import Foundation
import Testing

/// scripts/check-layout.py holds the folder graph to README's list: it passes on the checkout,
/// and fails on a copy where a folder reaches against the grain.
@Suite("Layout check")
struct LayoutCheckTests {
    static let script = packageRoot.appendingPathComponent("scripts/check-layout.py").path

    /// Runs the script on the checkout at `root`; its exit status and what it printed.
    static func check(_ root: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--root", root.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func theCheckoutPasses() throws {
        let result = try Self.check(packageRoot)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func aCycleAndAnUnlistedArrowFail() throws {
        let copy = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.copyItem(
            at: packageRoot.appendingPathComponent("README.md"),
            to: copy.appendingPathComponent("README.md"))
        let sources = copy.appendingPathComponent("Sources")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: packageRoot.appendingPathComponent("Sources/Procflow"),
            to: sources.appendingPathComponent("Procflow"))
        // The model reaching into the loader: Loading -> Workflow already holds.
        try Data("extension Step { var loader: WorkflowDecoder? { nil } }\n".utf8).write(
            to: sources.appendingPathComponent("Procflow/Workflow/Step+Loader.swift"))
        let result = try Self.check(copy)
        #expect(result.status == 1)
        #expect(result.output.contains("a cycle: "))
        #expect(result.output.contains("Workflow -> Loading is not in README.md's layout"))
    }
}

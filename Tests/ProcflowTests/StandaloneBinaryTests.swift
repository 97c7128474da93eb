import Foundation
import Testing

@testable import Procflow

/// procflow is one file: copied anywhere and run with an empty environment, it validates and
/// runs a workflow with HTTP, shell and file steps against its own `procflow serve`.
@Suite("One self-contained binary")
struct StandaloneBinaryTests {

    @Test func theBuiltBinaryCopiedAloneMakesHTTPRequests() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("procflow")
        try FileManager.default.copyItem(at: procflowBinary, to: copy)
        try runsAWorkflowWithHTTPAlone(copy)
    }

    /// The copy `scripts/install.sh` installed, named by PROCFLOW_INSTALLED (CI sets it).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["PROCFLOW_INSTALLED"] != nil))
    func theInstalledBinaryWorksFromAnEmptyDirectory() throws {
        let installed = URL(
            fileURLWithPath: ProcessInfo.processInfo.environment["PROCFLOW_INSTALLED"]!)
        let logs = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: logs) }
        let ldd = try IsolatedProcess(
            URL(fileURLWithPath: "/usr/bin/ldd"), [installed.path], in: logs,
            log: logs.appendingPathComponent("ldd.log")
        ).run()
        #expect(!ldd.output.contains("libswift"), "it needs the Swift runtime:\n\(ldd.output)")
        #expect(!ldd.output.contains("libFoundation"), "it needs Foundation:\n\(ldd.output)")
        #expect(!ldd.output.contains("libcurl"), "it links libcurl:\n\(ldd.output)")
        try runsAWorkflowWithHTTPAlone(installed)
    }

    /// `procflow serve` from `binary`, then `validate` and `run` of a workflow that fetches
    /// from it, feeds a shell step, posts the result back and stops the server: all under
    /// `env -i PATH=/usr/bin:/bin`, from an empty working directory.
    private func runsAWorkflowWithHTTPAlone(_ binary: URL) throws {
        let empty = try temporaryDirectory()
        let files = try temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: empty)
            try? FileManager.default.removeItem(at: files)
        }
        let site = files.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data(#"{"tag": "v7"}"#.utf8).write(to: site.appendingPathComponent("release.json"))
        let portFile = files.appendingPathComponent("port")
        let server = try IsolatedProcess(
            binary, ["serve", "--port", "0", "--root", site.path, "--port-file", portFile.path],
            in: empty, log: files.appendingPathComponent("serve.log"))
        let serverEnded = DispatchSemaphore(value: 0)
        try server.start(serverEnded)
        defer {
            if server.process.isRunning { server.process.terminate() }
            serverEnded.wait()
        }
        // Loose: a copy of a debug build starting on a loaded machine can take seconds.
        #expect(eventually(timeout: 60) { FileManager.default.fileExists(atPath: portFile.path) })
        let port = try String(contentsOf: portFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)

        let workflow = files.appendingPathComponent("release.json")
        try Data(Self.workflow.utf8).write(to: workflow)
        let validate = try IsolatedProcess(
            binary, ["validate", workflow.path, "--var", "port=\(port)"], in: empty,
            log: files.appendingPathComponent("validate.log")
        ).run()
        #expect(validate.status == 0, "\(validate.output)")
        #expect(validate.output.contains("valid workflow"), "\(validate.output)")

        let run = try IsolatedProcess(
            binary, ["run", workflow.path, "--var", "port=\(port)"], in: empty,
            log: files.appendingPathComponent("run.log")
        ).run()
        #expect(run.status == 0, "\(run.output)")
        let echo = try? String(
            contentsOf: files.appendingPathComponent("echo.json"), encoding: .utf8)
        #expect(echo?.contains(#""body":"release v7""#) == true, "\(echo ?? "no echo.json")")
        #expect(serverEnded.wait(timeout: .now() + 10) == .success, "the server did not stop")
        serverEnded.signal()
    }

    private static let workflow = """
        {"name": "standalone", "vars": {"port": "0"}, "procedures": [
          {"id": "fetch", "kind": "http", "url": "http://127.0.0.1:${port}/release.json",
           "output": "json"},
          {"id": "label", "kind": "shell", "run": "printf 'release %s' \\"$TAG\\"",
           "output": "text", "inputs": {"TAG": {"from": "fetch", "select": "/tag"}}},
          {"id": "post", "kind": "http", "method": "POST", "url": "http://127.0.0.1:${port}/echo",
           "input": {"from": "label"}, "output": "json"},
          {"id": "save", "kind": "file", "op": "write", "path": "echo.json",
           "input": {"from": "post"}},
          {"id": "stop", "kind": "http", "method": "POST",
           "url": "http://127.0.0.1:${port}/shutdown", "dependsOn": ["save"], "always": true}
        ]}
        """
}

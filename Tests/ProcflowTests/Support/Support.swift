import Foundation
import ProcedureKit
import Testing

@testable import Procflow

/// Loads `json` as a workflow file named `test.json`.
func loadWorkflow(_ json: String, overrides: [(name: String, value: String)] = []) -> Result<
    Workflow, WorkflowErrors
> {
    Result { () throws(WorkflowErrors) in
        try WorkflowLoader.load(bytes: Array(json.utf8), file: "test.json", overrides: overrides)
    }
}

/// The diagnostics `json` produces, as printed; empty if it is valid.
func diagnostics(_ json: String, overrides: [(name: String, value: String)] = []) -> [String] {
    switch loadWorkflow(json, overrides: overrides) {
    case .success: return []
    case .failure(let errors): return errors.diagnostics.map(\.description)
    }
}

/// A workflow file around `procedures` (a JSON array's content).
func workflow(_ procedures: String, extra: String = "") -> String {
    "{\(extra)\"procedures\": [\(procedures)]}"
}

/// The package's root directory.
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The directory of this test target's fixtures.
let fixtures = packageRoot.appendingPathComponent("Tests/ProcflowTests/Fixtures")

/// The `procflow` binary built next to the test bundle.
let procflowBinary: URL = {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    while directory.path != "/" {
        let candidate = directory.appendingPathComponent("procflow")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return packageRoot.appendingPathComponent(".build/debug/procflow")
}()

/// What a run of the binary printed and how it ended.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the `procflow` binary (or `executable`) with `arguments` and waits for it (with a time
/// limit).
func runProcflow(
    _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
    stdin: Data? = nil, timeout: TimeInterval = 120, executable: URL = procflowBinary
) throws -> CommandResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let output = Pipe()
    let error = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = input
    let finished = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in finished.signal() }
    try process.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try? input.fileHandleForWriting.close()
    let collected = Locked((Data(), Data()))
    let readers = DispatchGroup()
    for (index, pipe) in [output, error].enumerated() {
        readers.enter()
        // Threads of their own: a read that blocks until the process ends would hold one of
        // Dispatch's few threads, which Foundation needs to tell that it ended.
        Thread {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            collected.withLock { if index == 0 { $0.0 = data } else { $0.1 = data } }
            readers.leave()
        }.start()
    }
    if finished.wait(timeout: .now() + timeout) == .timedOut {
        process.terminate()
        _ = finished.wait(timeout: .now() + 5)
        Issue.record("procflow \(arguments.joined(separator: " ")) did not finish in \(timeout) s")
    }
    _ = readers.wait(timeout: .now() + 10)
    let (stdout, stderr) = collected.withLock { $0 }
    return CommandResult(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: stderr, as: UTF8.self))
}

/// Runs the `procflow` binary with `arguments` as ``runProcflow(_:in:environment:stdin:timeout:executable:)``
/// does, and measures its peak resident set (bytes) alone, through a small parent (python3)
/// that waits for it. `getrusage(RUSAGE_CHILDREN)` in the test process does not: a child it
/// spawns runs in its memory until the child's exec (posix_spawn's vfork), and the kernel
/// keeps the larger of that and the program's own peak, so every child reports the test
/// process's peak once that is larger.
func runProcflowMeasuringPeak(_ arguments: [String], in directory: URL, timeout: TimeInterval)
    throws -> (result: CommandResult, peak: Int)
{
    let script = """
        import os, signal, sys
        peak, program = sys.argv[1], sys.argv[2]
        pid = os.fork()
        if pid == 0:
            os.execv(program, sys.argv[2:])
        signal.signal(signal.SIGTERM, lambda *_: os.kill(pid, signal.SIGKILL))
        _, status, usage = os.wait4(pid, 0)
        with open(peak, "w") as out:
            out.write(str(usage.ru_maxrss * 1024))
        sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
        """
    let peakFile = directory.appendingPathComponent(".peak-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: peakFile) }
    let result = try runProcflow(
        ["python3", "-c", script, peakFile.path, procflowBinary.path] + arguments, in: directory,
        timeout: timeout, executable: URL(fileURLWithPath: "/usr/bin/env"))
    let peak = (try? String(contentsOf: peakFile, encoding: .utf8)).flatMap { Int($0) }
    #expect(peak != nil, "no peak measured for procflow \(arguments.joined(separator: " "))")
    return (result, peak ?? 0)
}

/// Runs a program (`arguments[0]`, looked up in `PATH`) with `arguments`, in `directory` with
/// `environment` if given, and waits for it; stdin is empty, and both outputs are read as they
/// come.
func runProgram(
    _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil
) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if let environment { process.environment = environment }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let stderr = Locked(Data())
    let reader = DispatchGroup()
    reader.enter()
    // A thread of its own, as in runProcflow.
    Thread {
        let data = error.fileHandleForReading.readDataToEndOfFile()
        stderr.withLock { $0 = data }
        reader.leave()
    }.start()
    let stdout = output.fileHandleForReading.readDataToEndOfFile()
    reader.wait()
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: stderr.withLock { $0 }, as: UTF8.self))
}

/// A fresh temporary directory, removed when the test process exits is not guaranteed: tests
/// remove it themselves.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "procflow-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// How many steps of a log that each step appends "s" to as it starts and "e" to as it ends
/// were between the two at once, at most.
func highestConcurrency(_ log: String?) -> Int {
    var running = 0
    var highest = 0
    for line in (log ?? "").split(separator: "\n") {
        running += line.hasPrefix("s") ? 1 : -1
        highest = max(highest, running)
    }
    return highest
}

/// A `procflow run` started in the background, to be signalled: its output goes to a file as it
/// comes, so that a test can wait for a line before it signals.
final class RunningProcflow: @unchecked Sendable {
    // @unchecked Sendable: its process and log are read, and signalled, from one test at a time.
    let process = Process()
    let log: URL

    init(_ fixture: WorkflowFixture, arguments: [String] = []) throws {
        log = fixture.directory.appendingPathComponent("procflow.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.executableURL = procflowBinary
        process.arguments = ["run", fixture.file] + arguments
        process.currentDirectoryURL = fixture.directory
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try handle.close()
    }

    /// What the run has printed so far.
    var output: String {
        (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the run to end, at most `timeout` seconds; returns its output.
    func finish(timeout: TimeInterval) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            Issue.record("procflow did not exit within \(timeout) s")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return output
    }
}

extension String {
    /// The text without the source lines and carets printed under located diagnostics
    /// (``DiagnosticSnippet``), for tests about the diagnostics themselves.
    var withoutSnippets: String {
        split(separator: "\n", omittingEmptySubsequences: false)
            .filter { $0.firstMatch(of: #/^ +[0-9]* \| /#) == nil }
            .joined(separator: "\n")
    }
}

/// Runs `work` on a thread of its own while this thread opens socket pairs, one after another
/// (at least 100, until `work` is done), each sending a byte through and reading it back:
/// how many of them another thread disturbed meanwhile (an end closed under it, made
/// non-blocking, a byte lost, taken or added), and how many it opened. Socket pairs, not
/// pipes: a write to a closed end fails (MSG_NOSIGNAL) rather than ending the test process
/// with SIGPIPE.
func socketPairsDisturbed(while work: @escaping @Sendable () -> Void) -> (
    disturbed: Int, opened: Int
) {
    let done = Locked(false)
    Thread {
        work()
        done.withLock { $0 = true }
    }.start()
    var disturbed = 0
    var opened = 0
    while !done.withLock({ $0 }) || opened < 100 {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else { continue }
        opened += 1
        var byte = UInt8(opened & 0xFF)
        var back: UInt8 = 0
        let blocking = fcntl(ends[0], F_GETFL) & O_NONBLOCK == 0
        if send(ends[1], &byte, 1, Int32(MSG_NOSIGNAL)) != 1
            || recv(ends[0], &back, 1, Int32(MSG_DONTWAIT)) != 1 || back != byte || !blocking
            // Nothing more arrived than was sent.
            || recv(ends[0], &back, 1, Int32(MSG_DONTWAIT)) != -1
        {
            disturbed += 1
        }
        close(ends[0])
        close(ends[1])
    }
    return (disturbed, opened)
}

import Foundation
import ProcedureKit
import Testing

@testable import Procflow

/// Runs `procedure` on a queue of its own and waits for it.
func run<P: Procedure>(_ procedure: P, timeout: TimeInterval = 30) -> P {
    let queue = ProcedureQueue()
    queue.addOperation(procedure)
    waitUntilFinished(procedure, timeout: timeout)
    return procedure
}

/// Lines a shell procedure reported, per stream.
final class LineRecorder: Sendable {
    private let lines = Locked([String]())

    var all: [String] { lines.withLock { $0 } }

    var handler: @Sendable (ShellProcedure.Stream, [Substring]) -> Void {
        { [self] stream, batch in
            lines.withLock { $0 += batch.map { "\(stream.rawValue): \($0)" } }
        }
    }
}

func shell(
    _ script: String, output: OutputFormat = .none, captureLimit: Int = 16 << 20,
    gracePeriod: TimeInterval = 5, recorder: LineRecorder? = nil, cwd: String? = nil
) -> ShellProcedure {
    ShellProcedure(
        .script(script),
        options: .init(
            workingDirectory: cwd, output: output, captureLimit: captureLimit,
            gracePeriod: gracePeriod,
            onOutput: recorder?.handler))
}

/// Whether any process whose command line contains `marker` is alive.
func processExists(containing marker: String) -> Bool {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    for entry in entries where entry.allSatisfy(\.isNumber) {
        guard let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else {
            continue
        }
        let commandLine = String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
        if commandLine.contains(marker), !commandLine.contains("procflowPackageTests") {
            // Zombies have finished; they only wait to be reaped.
            let status = (try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8)) ?? ""
            if status.split(separator: " ").dropFirst(2).first != "Z" { return true }
        }
    }
    return false
}

@Suite("ShellProcedure")
struct ShellProcedureTests {

    @Test func textOutputIsStdoutExactlyTrailingNewlinesIncluded() {
        let procedure = run(shell("printf 'hello\\nworld\\n\\n'", output: .text))
        #expect(procedure.output.value?.value == .string("hello\nworld\n\n"))
        #expect(procedure.error == nil)
    }

    @Test func argvRunsWithoutAShell() {
        let procedure = run(
            ShellProcedure(
                .argv(["printf", "%s", "$HOME; echo injected"]), options: .init(output: .text)))
        #expect(procedure.output.value?.value == .string("$HOME; echo injected"))
    }

    @Test func jsonOutputIsParsed() {
        let procedure = run(shell(#"printf '{"a": [1, true]}'"#, output: .json))
        #expect(procedure.output.value?.value == .object(["a": .array([.number(1), .bool(true)])]))
    }

    @Test func invalidJSONOutputFails() {
        let procedure = run(shell("printf '{\"a\": '", output: .json))
        let error = procedure.error as? StepError
        #expect(error?.code == .invalidJSON)
        #expect(
            error?.message
                == "stdout is not valid JSON: expected a value, found the end of the file (line 1, column 7)"
        )
    }

    @Test func aNonZeroExitFailsNamingTheStatusWithTheLastLinesOfStderr() {
        let procedure = run(shell("echo first >&2; echo second >&2; exit 3"))
        let error = procedure.error as? StepError
        #expect(error?.code == .exited(3))
        #expect(error?.message == "exited with status 3")
        #expect(error?.stderrTail == ["first", "second"])
    }

    @Test func deathByASignalFailsNamingTheSignal() {
        let procedure = run(shell("kill -KILL $$"))
        let error = procedure.error as? StepError
        #expect(error?.code == .signaled(9))
        #expect(error?.message == "killed by SIGKILL (9)")
    }

    @Test func aMissingProgramFails() {
        let procedure = run(ShellProcedure(.argv(["no-such-program-procflow"])))
        #expect(
            (procedure.error as? StepError)?.message
                == "command not found: no-such-program-procflow")
    }

    @Test func aMissingWorkingDirectoryFails() {
        let procedure = run(shell("true", cwd: "/nonexistent/dir"))
        #expect(
            (procedure.error as? StepError)?.message
                == "the working directory /nonexistent/dir does not exist")
    }

    @Test func theWorkingDirectoryIsUsed() {
        let procedure = run(shell("pwd", output: .text, cwd: "/usr"))
        #expect(procedure.output.value?.value == .string("/usr\n"))
    }

    @Test func theInputArrivesOnStdin() {
        let text = shell("cat", output: .text)
        text.input = .ready(.string("line one\nline two"))
        let json = shell("cat", output: .json)
        json.input = .ready(.object(["k": .number(1)]))
        #expect(run(text).output.value?.value == .string("line one\nline two"))
        #expect(run(json).output.value?.value == .object(["k": .number(1)]))
    }

    @Test func aLargeInputDoesNotBlock() {
        let big = String(repeating: "x", count: 2 << 20)
        let procedure = shell("wc -c | tr -d ' '", output: .text)
        procedure.input = .ready(.string(big))
        #expect(run(procedure).output.value?.value == .string("\(2 << 20)\n"))
    }

    @Test func environmentValuesReachTheCommandAsData() {
        let procedure = shell("printf '%s|%s' \"$NAME\" \"$DATA\"", output: .text)
        procedure.setEnvironmentValue(.string("$(touch /tmp/procflow-pwned); `id`"), for: "NAME")
        procedure.setEnvironmentValue(.array([.number(1), .string("two")]), for: "DATA")
        #expect(
            run(procedure).output.value?.value
                == .string(#"$(touch /tmp/procflow-pwned); `id`|[1,"two"]"#))
    }

    @Test func linesAreReportedAsTheyArrivePerStream() {
        let recorder = LineRecorder()
        let procedure = run(
            shell("echo one; echo err >&2; sleep 0.2; echo two", recorder: recorder))
        #expect(procedure.error == nil)
        #expect(recorder.all.filter { $0.hasPrefix("stdout") } == ["stdout: one", "stdout: two"])
        #expect(recorder.all.contains("stderr: err"))
    }

    @Test func outputIsStreamedBeforeTheCommandEnds() {
        let recorder = LineRecorder()
        let procedure = shell("echo early; sleep 5", recorder: recorder)
        ProcedureQueue().addOperation(procedure)
        #expect(eventually { recorder.all == ["stdout: early"] })
        procedure.cancel()
        waitUntilFinished(procedure)
    }

    @Test func aCapturedStdoutOverTheLimitFailsAndStopsTheCommand() {
        let started = Date()
        let procedure = run(shell("yes 0123456789", output: .text, captureLimit: 1 << 20))
        let error = procedure.error as? StepError
        #expect(error?.code == .outputLimitExceeded)
        #expect(error?.message == "stdout went over the 1 MiB capture limit")
        #expect(Date().timeIntervalSince(started) < 20)
    }

    /// An ended command's process is let go (a run keeps its procedures to its end): it has
    /// no process group any more.
    @Test func anEndedCommandHasNoProcessGroup() {
        let procedure = run(shell("true"))
        #expect(procedure.error == nil)
        #expect(procedure.processGroup == nil)
    }

    @Test func cancellingTerminatesTheWholeProcessGroup() {
        let marker = "procflow-test-\(UUID().uuidString.prefix(8))"
        let procedure = shell("sleep 300 & sleep 301 # \(marker)\nwait")
        ProcedureQueue().addOperation(procedure)
        #expect(
            eventually { processExists(containing: "sleep 30") && procedure.processGroup != nil })
        let group = procedure.processGroup!
        procedure.cancel()
        waitUntilFinished(procedure)
        #expect(procedure.isCancelled)
        #expect(eventually { !ProcessGroups.isAlive(group) })
    }

    @Test func aCommandThatIgnoresSIGTERMIsKilledAfterTheGracePeriod() {
        let recorder = LineRecorder()
        let procedure = shell(
            "trap '' TERM; echo ready >&2; sleep 300", gracePeriod: 0.3, recorder: recorder)
        ProcedureQueue().addOperation(procedure)
        // The trap is set once it says so.
        #expect(eventually { recorder.all == ["stderr: ready"] })
        let group = procedure.processGroup!
        let cancelled = Date()
        procedure.cancel()
        waitUntilFinished(procedure)
        #expect(Date().timeIntervalSince(cancelled) < 10)
        #expect(eventually { !ProcessGroups.isAlive(group) })
    }

    @Test func theStepEndsEvenIfAGrandchildKeepsAPipeOpen() {
        // The shell exits at once; its background child holds stdout open for 300 s.
        let started = Date()
        let procedure = run(shell("sleep 300 & echo done", output: .text))
        #expect(procedure.output.value?.value == .string("done\n"))
        #expect(Date().timeIntervalSince(started) < 20)
    }

    @Test func leftoverProcessesAreTerminatedWhenTheCommandExits() {
        let procedure = run(
            shell("(trap '' HUP; sleep 300) >/dev/null 2>&1 & echo started", output: .text))
        #expect(procedure.error == nil)
        let running = ProcessGroups.shared.running
        #expect(
            eventually(timeout: 15) {
                ProcessGroups.shared.running.isDisjoint(with: running)
                    || running.allSatisfy { !ProcessGroups.isAlive($0) }
            })
    }

    @Test func aTimeoutCancelsTheCommand() {
        let procedure = shell("sleep 300")
        procedure.addObserver(TimeoutObserver(by: 0.2))
        let started = Date()
        _ = run(procedure)
        #expect(procedure.error as? ProcedureKitError == .timedOut(after: 0.2))
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test func anInterruptForwardsItsSignal() {
        let recorder = LineRecorder()
        let procedure = shell(
            "trap 'echo got INT >&2; exit 42' INT; echo ready >&2; while true; do sleep 0.05; done",
            output: .text, recorder: recorder)
        ProcedureQueue().addOperation(procedure)
        #expect(eventually { recorder.all == ["stderr: ready"] })
        procedure.cancel(with: InterruptError(signal: SIGINT))
        waitUntilFinished(procedure)
        #expect(procedure.error is InterruptError)
        // The command got SIGINT, not SIGTERM: its trap ran.
        #expect(recorder.all == ["stderr: ready", "stderr: got INT"])
    }
}

/// Waits (at most `timeout` seconds) for `procedure` to finish and its did-finish observers to
/// have run: Foundation's `waitUntilFinished()` returns after them, `isFinished` turns true before.
func waitUntilFinished(_ procedure: Procedure, timeout: TimeInterval = 30) {
    let done = DispatchSemaphore(value: 0)
    Thread {
        procedure.waitUntilFinished()
        done.signal()
    }.start()
    #expect(
        done.wait(timeout: .now() + timeout) == .success,
        "the procedure did not finish in \(timeout) s")
}

/// Polls `condition` until it holds or `timeout` seconds pass.
func eventually(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(5000)
    }
    return condition()
}

@Suite("Starting commands")
struct StartingCommandTests {

    @Test(arguments: [
        ("true", ["true"]),
        ("cc -c main.c -o build/main.o", ["cc", "-c", "main.c", "-o", "build/main.o"]),
        ("  swift\tbuild  -c release ", ["swift", "build", "-c", "release"]),
        (
            "tool --flag=value a,b x:y +1 user@host 50%",
            [
                "tool", "--flag=value", "a,b", "x:y", "+1", "user@host", "50%",
            ]
        ),
    ])
    func aScriptWithoutShellSyntaxIsItsWords(script: String, words: [String]) {
        #expect(ShellProcedure.Command.script(script).directArguments == words)
    }

    @Test(arguments: [
        "echo $HOME", "ls *.swift", "a && b", "a; b", "a | b", "a > out", "cat < in",
        "echo 'quoted'", "echo \"quoted\"", "printf a\\\\n", "ls ~", "run # comment",
        "(subshell)", "{ group; }", "cmd &", "echo `date`", "a\nb", "NAME=value tool",
        "cd build", "exit 3", "echo -e x", "pwd", "export A", "if", ". ./env.sh", "",
        "   ", "tool caf\u{E9}", "readonly NAME", "continue",
    ])
    func anythingElseGoesToTheShell(script: String) {
        #expect(ShellProcedure.Command.script(script).directArguments == nil)
    }

    @Test func aSimpleScriptRunsWithoutAShell() {
        // dash drops variables whose names it cannot use, so only a direct exec sees this one.
        var environment = ProcessInfo.processInfo.environment
        environment["NOT-A-SHELL-NAME"] = "kept"
        let procedure = run(
            ShellProcedure(
                .script("printenv NOT-A-SHELL-NAME"),
                options: .init(environment: environment, output: .text)))
        #expect(procedure.error == nil)
        #expect(procedure.output.value?.value == .string("kept\n"))
    }

    @Test func aScriptThatCannotBeExecutedDirectlyFallsBackToTheShell() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // No #! line: exec(2) refuses it, a shell runs it.
        let script = directory.appendingPathComponent("noshebang")
        // Written with O_CLOEXEC, as in the test below: not "Text file busy" when another
        // test spawns a process while the file is open for writing.
        try POSIXIO.writeAtomically(
            Array("echo from the shell\n".utf8), to: script.path, mode: 0o755)
        let procedure = run(shell("./noshebang", output: .text, cwd: directory.path))
        #expect(procedure.error == nil)
        #expect(procedure.output.value?.value == .string("from the shell\n"))
    }

    @Test func anUnknownCommandFailsAsTheShellWouldReportIt() {
        let procedure = run(shell("procflow-no-such-command --flag"))
        let error = procedure.error as? StepError
        #expect(error?.code == .exited(127))
        #expect(error?.stderrTail.last?.contains("not found") == true)
    }

    @Test(arguments: [
        ShellProcedure.Command.argv(["procflow-test-tool"]), .script("procflow-test-tool"),
    ])
    func commandsAreLookedUpInTheirOwnPath(command: ShellProcedure.Command) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tools = directory.appendingPathComponent("tools")
        try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
        let tool = tools.appendingPathComponent("procflow-test-tool")
        // Written with O_CLOEXEC: a process another test spawns meanwhile must not inherit
        // the file open for writing, or running it fails with "Text file busy".
        try POSIXIO.writeAtomically(
            Array("#!/bin/sh\necho tool ran\n".utf8), to: tool.path, mode: 0o755)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = "tools:/usr/bin:/bin"  // relative: to the working directory
        let procedure = run(
            ShellProcedure(
                command,
                options: .init(
                    workingDirectory: directory.path, environment: environment, output: .text)))
        #expect(procedure.error == nil)
        #expect(procedure.output.value?.value == .string("tool ran\n"))
    }

    @Test func anArgvCommandNotInItsPathIsNotFound() {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = "/nonexistent"
        let procedure = run(
            ShellProcedure(.argv(["true"]), options: .init(environment: environment)))
        #expect((procedure.error as? StepError)?.message == "command not found: true")
    }

    @Test(arguments: [
        ShellProcedure.Command.argv(["printenv", "PWD"]), .script("printenv PWD"),
        .script("echo \"$PWD\""),
    ])
    func pwdNamesTheWorkingDirectory(command: ShellProcedure.Command) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = ProcessInfo.processInfo.environment
        environment["PWD"] = "/stale"
        let procedure = run(
            ShellProcedure(
                command,
                options: .init(
                    workingDirectory: directory.path, environment: environment, output: .text)))
        #expect(procedure.output.value?.value == .string(directory.path + "\n"))
    }
}

@Suite("Paths")
struct PathTests {
    @Test(arguments: [
        (".", "/work/flow", "/work/flow"),
        ("sub/./dir/", "/work/flow/", "/work/flow/sub/dir"),
        ("../out/a.txt", "/work/flow", "/work/out/a.txt"),
        ("../../../..", "/work", "/"),
        ("/abs/./kept", "/work", "/abs/./kept"),
        // Plain names on both sides: joined as they are.
        ("src/f017.c", "/work/flow", "/work/flow/src/f017.c"),
        ("x", "/", "/x"),
        ("é/ü.txt", "/wörk", "/wörk/é/ü.txt"),
        ("a..b/.c", "/w", "/w/a..b/.c"),
        // A directory with something to rewrite takes the long way.
        ("src/f.c", "/w//flow/.", "/w/flow/src/f.c"),
        ("f.c", "/w/../v", "/v/f.c"),
    ])
    func relativePathsResolveAgainstTheWorkflowDirectory(
        path: String, directory: String, resolved: String
    ) {
        #expect(resolve(path, in: directory) == resolved)
    }

    @Test func theTemporaryDirectoryIsFoundationsWithoutAURLWhereTMPDIRIsSimple() {
        #expect(temporaryDirectoryPath() == FileManager.default.temporaryDirectory.path)
        #expect(temporaryDirectoryPath(tmpdir: nil) == "/tmp")
        #expect(temporaryDirectoryPath(tmpdir: "/var/tmp") == "/var/tmp")
        // Anything to resolve is Foundation's to resolve.
        for tmpdir in ["/var/tmp/", "tmp", "", "/a/../b", "/a//b", "/a/./b"] {
            #expect(temporaryDirectoryPath(tmpdir: tmpdir) == nil)
        }
    }

    @Test func relativeDirectoriesStartFromTheWorkingDirectory() {
        let working = FileManager.default.currentDirectoryPath
        #expect(currentDirectory() == working)
        let root = working == "/" ? "" : working
        #expect(resolve("a/b", in: ".") == root + "/a/b")
        #expect(resolve("a/../b", in: ".") == root + "/b")
        #expect(resolve("x", in: "sub/..") == root + "/x")
        #expect(resolve("x", in: "sub") == root + "/sub/x")
    }

    @Test(arguments: [
        ("/w/flow.json", "/w/.procflow", "../flow.json"), ("/w/a/b", "/w", "a/b"),
        ("/w", "/w", "."), ("/x/y", "/w/z", "../../x/y"), ("/w", "/w/a", ".."), ("/", "/", "."),
        ("/w/ab", "/w/a", "../ab"),
    ])
    func pathsAreShownFromADirectory(path: String, directory: String, relative: String) {
        #expect(relativePath(of: path, from: directory) == relative)
    }

    @Test(arguments: [
        ("/w/flow.json", "/w/.procflow"), ("/flow.json", "/.procflow"),
        ("/w//x/flow.json", "/w/x/.procflow"), ("/w/x/", "/w/.procflow"),
        ("/w/x.d/flow.json", "/w/x.d/.procflow"),
    ])
    func theStateDirectoryIsBesideTheWorkflowFile(file: String, state: String) {
        #expect(StateDirectory.beside(workflow: file).path == state)
    }

    @Test func aWorkflowsStateFilesAreNamedByItsNameAndTheDigestOfItsPath() {
        let directory = StateDirectory(path: "/w/.procflow")
        let digest = String(SHA256.hash(Array("../sub/flow.json".utf8)).hex.prefix(12))
        #expect(
            directory.index(for: "/w/sub/flow.json") == "/w/.procflow/flow.json-\(digest).state")
        #expect(
            directory.snapshot(for: "/w//sub/flow.json").hasSuffix("/flow.json-\(digest).uptodate"))
        #expect(directory.lock(for: "/w/sub/").hasPrefix("/w/.procflow/sub-"))
    }

    @Test(arguments: [
        ("a/b.txt", "a/b.txt"), ("/a/b", "/a/b"), ("a//b", "a/b"), ("./a", "a"), ("a/.", "a"),
        ("a/../b", "b"), ("../a", "../a"), ("/../a", "/a"), ("a/", "a"), ("/", "/"), ("", "."),
        ("..", ".."), ("a/..", "."), ("/a/./b/../c", "/a/c"), (".hidden/x", ".hidden/x"),
        ("a/...", "a/..."),
    ])
    func pathsAreNormalizedLexically(path: String, normalized: String) {
        #expect(lexicallyNormalized(path) == normalized)
    }

    @Test(arguments: ["", "/", "//", "a", "/a", "a/", "/a//b/", "é/ü/x", "a/b/c/d", "./../a"])
    func aPathsPartsAreThoseOfASplitByCharacters(path: String) {
        #expect(path.parts(between: UInt8(ascii: "/")) == path.split(separator: "/"))
    }
}

import Dispatch
import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `procflow run FILE`: runs a workflow.
enum RunCommand {
    static let description = CommandDescription(
        name: "run", abstract: "Run a workflow.",
        discussion: """
            Steps run as soon as what they need has finished. A failed step's dependents are
            skipped; independent steps keep running unless --fail-fast. Exit status: 0 if every
            step succeeded or was skipped by a condition, 1 if any failed, 2 for an invalid
            workflow or command line, 130 after SIGINT (Ctrl-C) and 143 after SIGTERM. A first
            Ctrl-C forwards the signal to every running command, waits the grace period, then
            kills what is left; a second kills at once.
            """,
        arguments: [.init(name: "file", help: "The workflow file.")],
        options: [
            .value(
                "max-concurrent", "n",
                help:
                    "How many steps run at once per group; maxConcurrency, else the core count, by default."
            ),
            .flag(
                "fail-fast",
                help: "After the first failure, cancel every other step but always ones."
            ),
            .flag("dry-run", help: "Print the plan in order and run nothing."),
            .value(
                "var", "name=value", help: "Set a variable the workflow declares in vars.",
                repeatable: true),
            .value("only", "id", help: "Run only this procedure and what it needs."),
            .value(
                "events", "format", help: "Print events as JSON lines instead of text.",
                choices: ["json"]),
            .value(
                "output", "mode",
                help:
                    "How to print step output: prefixed lines as they come, or grouped blocks when each step ends (for CI).",
                choices: ["prefixed", "grouped"]),
            .value(
                "grace-period", "seconds",
                help: "How long commands get between SIGTERM and SIGKILL; 5 by default."),
            .value(
                "capture-limit", "MiB",
                help:
                    "The most stdout kept for a step's text or JSON output; past it the step fails. 16 by default."
            ),
        ])

    static func run(_ parsed: ParsedArguments, console: Console) -> Int32 {
        let usage = { (message: String) -> Int32 in
            console.writeError("error: \(message)\nUsage: \(description.usage)\n")
            return CommandLineTool.ExitStatus.usage
        }
        var options = WorkflowRunner.Options(environment: console.environment)
        if let text = parsed.value("max-concurrent") {
            guard let count = Int(text), count >= 1 else {
                return usage(
                    "The value '\(text)' is invalid for '--max-concurrent <n>': expected a whole number of at least 1"
                )
            }
            options.maxConcurrent = count
        }
        if let text = parsed.value("grace-period") {
            guard let seconds = Double(text), seconds >= 0 else {
                return usage(
                    "The value '\(text)' is invalid for '--grace-period <seconds>': expected a number of seconds"
                )
            }
            options.gracePeriod = seconds
        }
        if let text = parsed.value("capture-limit") {
            guard let mebibytes = Double(text), mebibytes > 0, mebibytes <= 1_048_576 else {
                return usage(
                    "The value '\(text)' is invalid for '--capture-limit <MiB>': expected a positive number"
                )
            }
            options.captureLimit = Int(mebibytes * 1_048_576)
        }
        options.failFast = parsed.flags.contains("fail-fast")
        guard
            var workflow = CommandLineTool.loadWorkflow(
                parsed, command: description, console: console)
        else {
            return CommandLineTool.ExitStatus.usage
        }
        if parsed.value("max-concurrent") == nil, let count = workflow.maxConcurrency {
            options.maxConcurrent = count
        }
        if let only = parsed.value("only") {
            guard let restricted = workflow.restricted(to: only) else {
                let ids = workflow.allSteps.map(\.id)
                return usage(
                    "--only \(only): no such procedure\(Suggestion.hint(for: only, in: ids))")
            }
            workflow = restricted
        }
        if parsed.flags.contains("dry-run") {
            console.write(Plan(workflow).text)
            return CommandLineTool.ExitStatus.success
        }
        let reporter: any Reporter
        if parsed.value("events") == "json" {
            reporter = JSONEventReporter(console: console)
        } else if parsed.value("output") == "grouped" {
            reporter = GroupedReporter(console: console)
        } else {
            reporter = TerminalReporter(console: console)
        }
        let runner = WorkflowRunner(workflow: workflow, options: options, reporters: [reporter])
        let signals = SignalForwarding(runner: runner)
        let summary = runner.run()
        signals.stop()
        switch summary.result {
        case .succeeded: return CommandLineTool.ExitStatus.success
        case .failed: return CommandLineTool.ExitStatus.failure
        case .interrupted(let signal): return 128 + signal
        }
    }
}

/// While a run lasts: the first SIGINT or SIGTERM cancels it (its commands get the signal, then
/// SIGKILL after the grace period); a second one kills every command at once.
final class SignalForwarding: @unchecked Sendable {
    // @unchecked Sendable: `sources` is set once in init and only cancelled afterwards.
    private let sources: [any DispatchSourceSignal]

    init(runner: WorkflowRunner) {
        // A closed stdout (`procflow run w.json | head`) must not kill procflow midway and orphan
        // its commands: writes fail with EPIPE instead, and the run goes on. Commands get the
        // default disposition back when they are spawned.
        signal(SIGPIPE, SIG_IGN)
        let received = Locked(0)
        let queue = DispatchQueue(label: "procflow.signals")
        sources = [SIGINT, SIGTERM].map { (signalNumber: Int32) -> any DispatchSourceSignal in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                let count = received.withLock { count in
                    count += 1
                    return count
                }
                if count == 1 {
                    runner.interrupt(signal: signalNumber)
                } else {
                    ProcessGroups.shared.signalAll(SIGKILL)
                }
            }
            source.resume()
            return source
        }
    }

    func stop() {
        for source in sources { source.cancel() }
    }
}

/// `procflow serve`: the loopback HTTP server workflows and tests use.
enum ServeCommand {
    static let description = CommandDescription(
        name: "serve", abstract: "Serve files over HTTP on 127.0.0.1 until asked to stop.",
        discussion: """
            GET serves files under the root; POST /echo answers the request as JSON; POST
            /shutdown stops the server, which then exits 0. For workflows that need a server
            without installing one.
            """,
        arguments: [],
        options: [
            .value(
                "port", "port", help: "The port to listen on; 0 (the default) picks a free one."),
            .value(
                "root", "directory", help: "The directory to serve; the current one by default."),
            .value("port-file", "path", help: "Write the port to this file once listening."),
        ])

    static func run(_ parsed: ParsedArguments, console: Console) -> Int32 {
        guard let port = UInt16(parsed.value("port") ?? "0") else {
            console.writeError(
                "error: The value '\(parsed.value("port")!)' is invalid for '--port <port>'\nUsage: \(description.usage)\n"
            )
            return CommandLineTool.ExitStatus.usage
        }
        let root = parsed.value("root") ?? FileManager.default.currentDirectoryPath
        let server: LoopbackServer
        do {
            server = try LoopbackServer(port: port, root: root)
        } catch {
            console.writeError("error: \(error.description)\n")
            return CommandLineTool.ExitStatus.failure
        }
        if let path = parsed.value("port-file") {
            do {
                try FileProcedure.writeAtomically(Array("\(server.port)\n".utf8), to: path)
            } catch {
                console.writeError("error: \(error.message)\n")
                return CommandLineTool.ExitStatus.failure
            }
        }
        console.write("serving \(root) on http://127.0.0.1:\(server.port)\n")
        let queue = DispatchQueue(label: "procflow.serve.signals")
        let sources = [SIGINT, SIGTERM].map { (number: Int32) -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { server.stop() }
            source.resume()
            return source
        }
        server.start()
        server.wait()
        for source in sources { source.cancel() }
        console.write("stopped after \(plural(server.requestCount, "request"))\n")
        return CommandLineTool.ExitStatus.success
    }
}

import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs a command, by `/bin/sh -c` or directly, as a procedure.
///
/// The command leads its own process group. Its stdout and stderr are drained as they arrive
/// and handed to ``Options/onOutput`` line by line. Its input, if set, is written to its stdin;
/// ``setEnvironmentValue(_:for:)`` gives it more values as environment variables — wired data
/// never becomes part of the command's text.
///
/// Its output is, by ``Options/output``, nothing (`.null`), stdout as text (without trailing
/// newlines, as shell command substitution has it), or stdout parsed as JSON. A non-zero exit,
/// death by a signal, invalid JSON, or a captured stdout over ``Options/captureLimit`` bytes
/// fails it with a ``StepError``.
///
/// Cancelling it (a timeout does) sends SIGTERM to its process group — or the signal of an
/// ``InterruptError`` it is cancelled with — then SIGKILL after ``Options/gracePeriod``.
public final class ShellProcedure: Procedure, InputProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `state`, a `Locked` mutex.

    /// What to run.
    public enum Command: Sendable {
        /// A script for `/bin/sh -c`.
        case script(String)
        /// A program and its arguments, run without a shell.
        case argv([String])
    }

    /// Which of the command's output streams a line came from.
    public enum Stream: String, Sendable {
        case stdout, stderr
    }

    public struct Options: Sendable {
        public var workingDirectory: String?
        /// The command's whole environment.
        public var environment: [String: String]
        public var output: OutputFormat
        /// The most stdout bytes kept for a text or JSON output.
        public var captureLimit: Int
        /// How long the command gets between the first signal and SIGKILL.
        public var gracePeriod: TimeInterval
        /// Called with each batch of complete lines, on an arbitrary thread, in order per
        /// stream.
        public var onOutput: (@Sendable (Stream, [Substring]) -> Void)?

        public init(
            workingDirectory: String? = nil,
            environment: [String: String] = ProcessInfo.processInfo.environment,
            output: OutputFormat = .none, captureLimit: Int = 16 << 20,
            gracePeriod: TimeInterval = 5,
            onOutput: (@Sendable (Stream, [Substring]) -> Void)? = nil
        ) {
            self.workingDirectory = workingDirectory
            self.environment = environment
            self.output = output
            self.captureLimit = captureLimit
            self.gracePeriod = gracePeriod
            self.onOutput = onOutput
        }
    }

    /// Values wired into a command's environment. The attempts of a retry share one.
    public final class EnvironmentInputs: Sendable {
        private let values = Locked([String: String]())

        public init() {}

        /// Sets `name` to `value`: a string as is, any other value as JSON text.
        public func set(_ value: JSONValue, for name: String) {
            values.withLock { $0[name] = value.text }
        }

        var all: [String: String] {
            values.withLock { $0 }
        }
    }

    private struct State {
        var input: Pending<JSONValue> = .pending
        var output: Pending<ProcedureResult<JSONValue>> = .pending
        var run: ProcessRun?
    }

    public let command: Command
    public let options: Options
    /// The values ``setEnvironmentValue(_:for:)`` sets, read when the command starts.
    public let environmentInputs: EnvironmentInputs
    private let state = Locked(State())

    public init(
        _ command: Command, options: Options = Options(),
        environmentInputs: EnvironmentInputs = EnvironmentInputs()
    ) {
        self.command = command
        self.options = options
        self.environmentInputs = environmentInputs
        super.init()
        Self.ignoreBrokenPipes
    }

    /// A command that closes its stdin early must not kill procflow with SIGPIPE.
    private static let ignoreBrokenPipes: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()

    /// What the command reads on stdin: a string as is, any other value as JSON text.
    public var input: Pending<JSONValue> {
        get { state.withLock { $0.input } }
        set { state.withLock { $0.input = newValue } }
    }

    public var output: Pending<ProcedureResult<JSONValue>> {
        get { state.withLock { $0.output } }
        set { state.withLock { $0.output = newValue } }
    }

    /// Gives the command `value` in the environment variable `name`: a string as is, any other
    /// value as JSON text. Set before the procedure executes.
    public func setEnvironmentValue(_ value: JSONValue, for name: String) {
        environmentInputs.set(value, for: name)
    }

    /// The process group of the running command, if it is running.
    public var processGroup: pid_t? {
        state.withLock { $0.run?.pid }
    }

    public override func execute() {
        let input = state.withLock { $0.input.value }
        var environment = options.environment
        environment.merge(environmentInputs.all) { _, wired in wired }
        let executable: String
        let arguments: [String]
        switch command {
        case .script(let script):
            (executable, arguments) = ("/bin/sh", ["/bin/sh", "-c", script])
        case .argv(let argv):
            (executable, arguments) = (argv[0], argv)
        }
        let launch = ProcessRun.Launch(
            executable: executable, arguments: arguments, environment: environment,
            workingDirectory: options.workingDirectory, stdin: input.map { Array($0.text.utf8) },
            captureStdout: options.output != .none, captureLimit: options.captureLimit,
            gracePeriod: options.gracePeriod, pipeGracePeriod: 0.2, onOutput: options.onOutput)
        do {
            let run = try ProcessRun.start(launch) { [self] outcome in processDidEnd(outcome) }
            state.withLock { $0.run = run }
        } catch {
            finish(withResult: .failure(error))
        }
    }

    public override func procedureDidCancel(with error: (any Error)?) {
        guard let run = state.withLock({ $0.run }) else { return }
        run.terminate(
            signal: Self.interruptSignal(in: error) ?? SIGTERM, gracePeriod: options.gracePeriod)
    }

    /// The signal an ``InterruptError`` asks for, however deeply it is wrapped.
    static func interruptSignal(in error: (any Error)?) -> Int32? {
        var current = error
        while let error = current {
            if let interrupt = error as? InterruptError { return interrupt.signal }
            current = (error as? ProcedureKitError)?.error
        }
        return nil
    }

    private func processDidEnd(_ outcome: ProcessRun.Outcome) {
        let tail = outcome.stderrTail
        if outcome.captureExceeded {
            return finish(
                withResult: .failure(
                    StepError(
                        .outputLimitExceeded,
                        "stdout went over the \(formatBytes(options.captureLimit)) capture limit",
                        stderrTail: tail)))
        }
        switch outcome.termination {
        case .signaled(let signal):
            return finish(
                withResult: .failure(
                    StepError(
                        .signaled(signal), "killed by \(SignalName.describe(signal))",
                        stderrTail: tail)))
        case .exited(let code) where code != 0:
            return finish(
                withResult: .failure(
                    StepError(.exited(code), "exited with status \(code)", stderrTail: tail)))
        case .exited:
            break
        }
        switch options.output {
        case .none:
            finish(withResult: .success(.null))
        case .text:
            var text = String(decoding: outcome.captured, as: UTF8.self)
            while text.hasSuffix("\n") { text.removeLast() }
            finish(withResult: .success(.string(text)))
        case .json:
            do {
                finish(withResult: .success(try JSONParser.parse(outcome.captured).plain))
            } catch {
                let location = SourceText(bytes: outcome.captured).location(ofOffset: error.offset)
                finish(
                    withResult: .failure(
                        StepError(
                            .invalidJSON,
                            "stdout is not valid JSON: \(error.message) (line \(location.line), column \(location.column))",
                            stderrTail: tail)))
            }
        }
    }
}

/// "16 MiB", "512 KiB", "100 bytes".
func formatBytes(_ count: Int) -> String {
    if count >= 1 << 20, count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
    if count >= 1 << 10, count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
    return "\(count) bytes"
}

extension JSONValue {
    /// The value as a command sees it: a string as is, anything else as JSON text.
    public var text: String {
        if case .string(let string) = self { return string }
        return JSONWriter.string(self)
    }
}

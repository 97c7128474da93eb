import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs a command, by a shell (`/bin/sh -e -c` by default) or directly, as a procedure.
///
/// The command leads its own process group. Its stdout and stderr are drained as they arrive
/// and handed to ``Options/onOutput`` line by line. Its input, if set, is written to its stdin;
/// ``setEnvironmentValue(_:for:)`` gives it more values as environment variables — wired data
/// never becomes part of the command's text.
///
/// Its output is, by ``Options/output``, nothing (`.null`), stdout as text, exactly as written
/// (trailing newlines included, as a file read keeps them), or stdout parsed as JSON. A non-zero exit,
/// death by a signal, invalid JSON, or a captured stdout over ``Options/captureLimit`` bytes
/// fails it with a ``StepError``.
///
/// With a ``Options/jobserver``, it takes its tokens before the command starts — waiting while
/// other commands' jobs hold them all — and puts them back when the command is over.
///
/// Cancelling it (a timeout does) sends SIGTERM to its process group — or the signal of an
/// ``InterruptError`` it is cancelled with — then SIGKILL after ``Options/gracePeriod``.
///
/// A service (``Options/service``) succeeds once its command is ready and leaves it running
/// (``ServiceLifecycle``), until ``stopService()``.
public final class ShellProcedure: Procedure, StepPortsProcedure, @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `ports` and `state`, `Locked` mutexes.

    /// What to run.
    public enum Command: Sendable {
        /// A script for `interpreter`, which stops at its first failing line.
        ///
        /// A script for a shell that is only words the shell would pass on unchanged
        /// (``directArguments``) is run without the shell, as make does: the same command, one
        /// exec fewer.
        case script(String, interpreter: Shell.Interpreter = .sh)
        /// A program and its arguments, run without a shell.
        case argv([String])

        /// Whether `word` is a first word that needs `/bin/sh` to mean what it means: one of
        /// its builtins and keywords, or a utility whose builtin and standalone versions differ
        /// (`echo -e`, a logical `pwd`). Each word is compared as its bytes packed in an
        /// integer: not a `Set` (the runtime's first lookup of `Set<Substring>` costs a third
        /// of a million instructions), nor a `switch` over the words, which compared all sixty
        /// as strings for every command started (a fifteenth of a step's instructions).
        static func isShellWord(_ word: Substring) -> Bool {
            guard let key = packed(word.utf8) else { return false }
            return shellWordKeys.contains(key)
        }

        /// The bytes of a word of eight bytes at most (the longest builtin's length) in one
        /// integer, the first in the highest place: two words without NUL bytes pack alike
        /// only if they are the same word.
        private static func packed(_ bytes: some Collection<UInt8>) -> UInt64? {
            guard bytes.count <= 8 else { return nil }
            return bytes.reduce(0) { $0 << 8 | UInt64($1) }
        }

        private static let shellWordKeys: [UInt64] = [
            "!", ".", ":", "[", "[[", "{", "}", "alias", "bg", "break", "case", "cd", "chdir",
            "command", "continue", "declare", "do", "done", "echo", "elif", "else", "esac",
            "eval", "exec", "exit", "export", "fc", "fg", "fi", "for", "function", "getopts",
            "hash", "if", "in", "jobs", "kill", "let", "local", "logout", "printf", "pwd",
            "read", "readonly", "return", "select", "set", "shift", "source", "test", "then",
            "time", "times", "trap", "type", "typeset", "ulimit", "umask", "unalias", "unset",
            "until", "wait", "while",
        ].map { packed($0.utf8)! }

        /// The words of a script with no shell syntax in it, or nil.
        ///
        /// Such a script is words of letters, digits and `-_./,:+@%=` separated by spaces or
        /// tabs, whose first word is not a shell builtin or keyword and has no `=` (which would
        /// make it an assignment). Quotes, `$`, globs, `~`, redirections, `;`, `&`, `|`, `#`,
        /// backslashes, newlines and any other character leave it to the shell.
        public var directArguments: [String]? {
            guard case .script(let script, let interpreter) = self,
                interpreter.runsPlainWordsDirectly
            else { return nil }
            for byte in script.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: " "), UInt8(ascii: "\t"),
                    UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "/"),
                    UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "+"), UInt8(ascii: "@"),
                    UInt8(ascii: "%"), UInt8(ascii: "="):
                    continue
                default:
                    return nil
                }
            }
            // Split as bytes, every one of them ASCII: as characters, a link's 300 words took
            // 1.7 million instructions.
            let words = script.utf8.split(whereSeparator: {
                $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t")
            }).map(Substring.init)
            guard let first = words.first, !Self.isShellWord(first),
                !first.utf8.contains(UInt8(ascii: "="))
            else {
                return nil
            }
            return words.map(String.init)
        }
    }

    /// Which of the command's output streams a line came from.
    public enum Stream: String, Sendable {
        case stdout, stderr
    }

    /// How the command runs.
    public struct Options: Sendable {
        /// The directory the command starts in; procflow's own when `nil`.
        public var workingDirectory: String?
        /// The command's environment, but for ``stepEnvironment``.
        public var environment: [String: String] {
            get { sharedEnvironment.values }
            set { sharedEnvironment = SharedEnvironment(newValue) }
        }
        /// ``environment``, which the steps of a run share.
        var sharedEnvironment: SharedEnvironment
        /// The step's own variables (its `env`, `PROCFLOW_STEP`), over ``environment``: kept
        /// apart so that the steps of a run share one copy of its environment.
        var stepEnvironment: [String: String] = [:]
        /// What becomes of stdout: nothing, text, or JSON.
        public var output: OutputFormat
        /// The most stdout bytes kept for a text or JSON output.
        public var captureLimit: Int
        /// How long the command gets between the first signal and SIGKILL.
        public var gracePeriod: TimeInterval
        /// Where the command's process group is registered while it may hold processes.
        public var processGroups: ProcessGroups
        /// Called with each batch of complete lines, on an arbitrary thread, in order per
        /// stream.
        public var onOutput: (@Sendable (Stream, [Substring]) -> Void)?
        /// Where the command runs: this machine by default.
        var executor: any CommandExecutor = LocalExecutor()
        /// What the command asks of an executor that runs it as a job.
        var job = JobRequest()
        /// The run's secrets, which output lines are never cut inside.
        var secrets = SecretValues.none
        /// Set for a service: the procedure finishes once the command is ready, which keeps
        /// running.
        var service: ServiceOptions?
        /// The run's jobserver, for a command run on this machine.
        var jobserver: JobserverUse?

        /// The command's whole environment.
        var wholeEnvironment: [String: String] {
            stepEnvironment.isEmpty
                ? environment : environment.merging(stepEnvironment) { _, own in own }
        }

        /// Options; by default procflow's environment, no output, a 16 MiB capture limit, a 5 s
        /// grace period, the shared process-group registry.
        public init(
            workingDirectory: String? = nil,
            environment: [String: String] = ProcessInfo.processInfo.environment,
            output: OutputFormat = .none, captureLimit: Int = 16 << 20,
            gracePeriod: TimeInterval = 5, processGroups: ProcessGroups = .shared,
            onOutput: (@Sendable (Stream, [Substring]) -> Void)? = nil
        ) {
            self.workingDirectory = workingDirectory
            // An empty one (a run's steps are given the run's shared one after) needs no
            // instance of its own.
            sharedEnvironment = environment.isEmpty ? .none : SharedEnvironment(environment)
            self.output = output
            self.captureLimit = captureLimit
            self.gracePeriod = gracePeriod
            self.processGroups = processGroups
            self.onOutput = onOutput
        }
    }

    /// Values wired into a command's environment. The attempts of a retry share one.
    public final class EnvironmentInputs: Sendable {
        private let values = Locked([String: String]())

        /// No values yet.
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
        var run: (any RunningCommand)?
        /// The jobserver, once asked for tokens; the wait for them, and the tokens once held.
        var jobserver: Jobserver?
        var ticket: Jobserver.Ticket?
        var tokens: Jobserver.Tokens?
        /// Cancelled before the command started: it is ended as soon as it starts.
        var cancelled = false
        var cancelError: (any Error)?
    }

    /// What it runs.
    public let command: Command
    /// How it runs it.
    public let options: Options
    /// The values ``setEnvironmentValue(_:for:)`` sets, read when the command starts.
    public let environmentInputs: EnvironmentInputs
    /// The input and output.
    public let ports = Locked(StepPorts())
    private let state = Locked(State())
    /// For a service: its readiness and its end.
    private let lifecycle: ServiceLifecycle?

    /// A procedure that runs `command` with `options`; `environmentInputs` holds the values wired
    /// into its environment (shared by the attempts of a retry).
    public init(
        _ command: Command, options: Options = Options(),
        environmentInputs: EnvironmentInputs = EnvironmentInputs()
    ) {
        self.command = command
        self.options = options
        self.environmentInputs = environmentInputs
        lifecycle = options.service.map { service in
            ServiceLifecycle(
                service,
                command: .init(
                    environment: options.wholeEnvironment, directory: options.workingDirectory,
                    gracePeriod: options.gracePeriod, groups: options.processGroups))
        }
        super.init()
    }

    /// Gives the command `value` in the environment variable `name`: a string as is, any other
    /// value as JSON text. Set before the procedure executes.
    public func setEnvironmentValue(_ value: JSONValue, for name: String) {
        environmentInputs.set(value, for: name)
    }

    /// The process group of the running command, if it is running.
    public var processGroup: pid_t? {
        state.withLock { $0.run?.processGroup }
    }

    public override func execute() {
        guard let use = options.jobserver else { return startCommand(handing: nil) }
        let jobserver: Jobserver
        do {
            jobserver = try use.jobserver.jobserver()
        } catch {
            return finish(withResult: .failure(error))
        }
        state.withLock { $0.jobserver = jobserver }
        let ticket = jobserver.acquire(use.tokens, handsOver: use.handsOver) { [self] tokens in
            tokensGranted(tokens, by: jobserver)
        }
        state.withLock { $0.ticket = ticket }
    }

    /// Starts the command once its jobserver tokens are held, unless it was cancelled first.
    private func tokensGranted(_ tokens: Jobserver.Tokens, by jobserver: Jobserver) {
        let cancelled = state.withLock { state -> (any Error)?? in
            state.tokens = tokens
            return state.cancelled ? .some(state.cancelError) : nil
        }
        if let cancelled {
            releaseTokens()
            return finish(with: cancelled)
        }
        startCommand(handing: tokens.handsOver ? jobserver : nil)
    }

    /// Puts back the jobserver tokens the command held, if it held any.
    private func releaseTokens() {
        let held = state.withLock { state in
            defer { state.tokens = nil }
            return state.tokens.map { ($0, state.jobserver) }
        }
        if let (tokens, jobserver) = held { jobserver?.release(tokens) }
    }

    /// Starts the command, handing it `jobserver` if there is one.
    private func startCommand(handing jobserver: Jobserver?) {
        let input = input.value
        var launch = CommandLaunch(
            executable: "/bin/sh", arguments: [], sharedEnvironment: options.sharedEnvironment,
            workingDirectory: options.workingDirectory, stdin: input.map { Array($0.text.utf8) },
            captureStdout: options.output != .none, captureLimit: options.captureLimit,
            gracePeriod: options.gracePeriod, pipeGracePeriod: 0.2, groups: options.processGroups,
            onOutput: lifecycle?.watching(options.onOutput) ?? options.onOutput,
            secrets: options.secrets, job: options.job)
        launch.ownEnvironment = options.stepEnvironment
        let wired = environmentInputs.all
        if !wired.isEmpty { launch.ownEnvironment.merge(wired) { _, wired in wired } }
        if let jobserver {
            launch.ownEnvironment["MAKEFLAGS"] = jobserver.makeflags(
                after: launch.environmentValue("MAKEFLAGS"))
            let (read, write) = Jobserver.clientDescriptors
            launch.inheritedDescriptors = [
                (jobserver.clientEnds.read, read), (jobserver.clientEnds.write, write),
            ]
        }
        switch command {
        case .script(let script, let interpreter):
            if let words = command.directArguments, options.executor.spawnsLocally {
                launch.executable = words[0]
                launch.arguments = words
                // Not found, not executable, a script without #!: the shell's way, errors too.
                if (try? start(launch)) != nil { return }
            }
            launch.arguments = interpreter.arguments(
                running: script, shHasPipefail: Self.shHasPipefail)
            launch.executable = launch.arguments[0]
        case .argv(let argv):
            launch.executable = argv[0]
            launch.arguments = argv
        }
        do {
            try start(launch)
        } catch {
            releaseTokens()
            finish(withResult: .failure(error))
        }
    }

    /// Whether `/bin/sh` has `set -o pipefail` (dash, Debian's, has not): asked once, of
    /// `/bin/sh` itself, spawned and waited for here (not through a run, whose thread may be
    /// the one asking).
    static let shHasPipefail: Bool = {
        let arguments = CStringArray(
            ["/bin/sh", "-c", "set -o pipefail 2>/dev/null"].map { ($0, nil) })
        defer { arguments.deallocate() }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", nil, nil, arguments.pointers, environ) == 0 else {
            return false
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return status == 0
    }()

    private func start(_ launch: CommandLaunch) throws(StepError) {
        let run = try options.executor.start(launch) { [self] outcome in processDidEnd(outcome) }
        // A cancel that came while the command was starting ends it now.
        let cancelled = state.withLock { state -> (any Error)?? in
            state.run = run
            return state.cancelled ? .some(state.cancelError) : nil
        }
        lifecycle?.started(run, by: self)
        if let cancelled { terminate(run, for: cancelled) }
    }

    public override func procedureDidCancel(with error: (any Error)?) {
        lifecycle?.cancelled()
        let (run, ticket, jobserver) = state.withLock { state in
            state.cancelled = true
            state.cancelError = error
            return (state.run, state.ticket, state.jobserver)
        }
        if let run { return terminate(run, for: error) }
        // Still waiting for jobserver tokens: it never starts.
        if let ticket, let jobserver, jobserver.cancel(ticket) { finish(with: error) }
    }

    /// Ends `run` with the signal `error` asks for, SIGTERM by default.
    private func terminate(_ run: any RunningCommand, for error: (any Error)?) {
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

    private func processDidEnd(_ outcome: CommandOutcome) {
        releaseTokens()
        let result = Self.result(
            of: outcome, output: options.output, captureLimit: options.captureLimit)
        guard let lifecycle else {
            // Over: what ran it is let go, though the procedure may be kept to the run's end.
            state.withLock { $0.run = nil }
            return finish(withResult: result)
        }
        if let result = lifecycle.ended(outcome, as: result) { finish(withResult: result) }
    }

    /// Stops a service that is ready: SIGTERM to its process group, then SIGKILL after the
    /// grace period.
    func stopService() {
        state.withLock { $0.run }?.terminate(signal: SIGTERM, gracePeriod: options.gracePeriod)
    }

    /// What a command's end makes of the procedure: its output, or why it failed. Only an
    /// exit with status 0 succeeds.
    static func result(
        of outcome: CommandOutcome, output: OutputFormat, captureLimit: Int
    ) -> ProcedureResult<JSONValue> {
        let tail = outcome.stderrTail
        if outcome.captureExceeded {
            return .failure(
                StepError(
                    .outputLimitExceeded,
                    "stdout went over the \(formatBytes(captureLimit)) capture limit",
                    stderrTail: tail))
        }
        switch outcome.termination {
        case .signaled(let signal):
            return .failure(
                StepError(
                    .signaled(signal), "killed by \(SignalName.describe(signal))",
                    stderrTail: tail))
        case .exited(127) where notFound(in: tail) != nil:
            // What sh and bash say of a command they cannot find, as an argv's is said.
            return .failure(
                StepError(.exited(127), notFound(in: tail)!, stderrTail: tail))
        case .exited(let code) where code != 0:
            return .failure(
                StepError(.exited(code), "exited with status \(code)", stderrTail: tail))
        case .unknown(let reason):
            return .failure(
                StepError(
                    .exitStatusUnknown, "its exit status could not be read: \(reason)",
                    stderrTail: tail))
        case .notStarted(let reason):
            return .failure(StepError(.spawnFailed, reason, stderrTail: tail))
        case .ended(let reason):
            return .failure(StepError(.jobEnded, reason, stderrTail: tail))
        case .exited:
            return value(of: outcome.captured, as: output, stderrTail: tail)
        }
    }

    /// "command not found: NAME (line N)" when the last line of stderr is a shell's saying so:
    /// `/bin/sh: 2: NAME: not found` (dash), `bash: line 2: NAME: command not found`.
    static func notFound(in tail: [String]) -> String? {
        guard let last = tail.last,
            let match = last.wholeMatch(
                of: /[^:]*: (?:line )?([0-9]+): (.+): (?:command )?not found/)
        else { return nil }
        return "command not found: \(match.output.2) (line \(match.output.1))"
    }

    /// Stdout as the step's output: nothing, the text exactly as written, or JSON.
    private static func value(of stdout: [UInt8], as output: OutputFormat, stderrTail: [String])
        -> ProcedureResult<JSONValue>
    {
        switch output {
        case .none:
            return .success(.null)
        case .text:
            return .success(.string(String(decoding: stdout, as: UTF8.self)))
        case .json:
            do {
                return .success(try JSONParser.parse(stdout).plain)
            } catch {
                let location = SourceText(bytes: stdout).location(ofOffset: error.offset)
                return .failure(
                    StepError(
                        .invalidJSON,
                        "stdout is not valid JSON: \(error.message) (line \(location.line), column \(location.column))",
                        stderrTail: stderrTail))
            }
        }
    }
}

extension JSONValue {
    /// The value as a command sees it: a string as is, anything else as JSON text.
    public var text: String {
        if case .string(let string) = self { return string }
        return JSONWriter.string(self)
    }
}

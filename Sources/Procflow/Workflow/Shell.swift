/// A command run by a shell (or another interpreter) or directly.
public struct Shell: Sendable {
    /// What to run.
    public enum Command: Sendable {
        /// A script for the step's ``Interpreter``.
        case script(String)
        /// A program and its arguments, run without a shell.
        case argv([String])
    }

    /// What runs a `run` script. Every one stops at the first failing line, as make and just
    /// do: the shells with `-e` (and `pipefail` where the shell has it), Python by nature.
    public enum Interpreter: Sendable, Equatable {
        /// `/bin/sh -e -c`, with `-o pipefail` where `/bin/sh` has it (dash, Debian's, does
        /// not).
        case sh
        /// `bash -e -o pipefail -c`, as GitHub Actions runs `run` steps.
        case bash
        /// `python3 -c`.
        case python3
        /// A program and its first arguments; the script is the last argument
        /// (`["pwsh", "-Command"]`).
        case command([String])

        /// The argv that runs `script`; `pipefail` tells whether `/bin/sh` has it.
        public func arguments(running script: String, shHasPipefail pipefail: Bool) -> [String] {
            switch self {
            case .sh: ["/bin/sh", "-e"] + (pipefail ? ["-o", "pipefail"] : []) + ["-c", script]
            case .bash: ["bash", "-e", "-o", "pipefail", "-c", script]
            case .python3: ["python3", "-c", script]
            case .command(let prefix): prefix + [script]
            }
        }

        /// Whether a script that is only plain words (``ShellProcedure/Command/directArguments``)
        /// means the same run without it, as a program and its arguments: true of the shells.
        public var runsPlainWordsDirectly: Bool {
            self == .sh || self == .bash
        }

        /// How the workflow file names it: `"sh"`, or `["pwsh", "-Command"]`.
        public var name: String {
            switch self {
            case .sh: "sh"
            case .bash: "bash"
            case .python3: "python3"
            case .command(let prefix): prefix.joined(separator: " ")
            }
        }
    }

    /// What to run.
    public var command: Command
    /// What runs a `run` script.
    public var interpreter: Interpreter = .sh
    /// The working directory, relative to the workflow file.
    public var cwd: String?
    /// Environment variables for this command, in file order.
    public var environment: [(name: String, value: String)]
    /// Wired inputs, each given to the command as an environment variable of that name.
    public var inputs: [(name: String, wire: Wire)]
    /// What becomes of stdout.
    public var output: OutputFormat
    /// Set when the step is a service: a process kept running while its dependents run.
    public var service: Service? {
        get { serviceBox?.service }
        set { serviceBox = newValue.map(ServiceBox.init) }
    }
    /// Whether a command run on this machine is handed the run's jobserver (`MAKEFLAGS` with
    /// `--jobserver-auth`), so that the make, ninja or cargo it runs shares `--max-concurrent`.
    public var jobserver = true
    /// The service, out of line: few steps are one, and inline it took 32 bytes of every
    /// step's.
    private var serviceBox: ServiceBox?

    /// A service in a box of its own: a reference inline.
    private final class ServiceBox: Sendable {
        let service: Service

        init(_ service: Service) {
            self.service = service
        }
    }

    /// A command run by `interpreter` (or directly), in `cwd`, with `environment` and the
    /// wired `inputs`; its stdout becomes `output`; `service` if it is one.
    public init(
        command: Command, interpreter: Interpreter = .sh, cwd: String? = nil,
        environment: [(name: String, value: String)], inputs: [(name: String, wire: Wire)],
        output: OutputFormat, service: Service? = nil
    ) {
        self.command = command
        self.interpreter = interpreter
        self.cwd = cwd
        self.environment = environment
        self.inputs = inputs
        self.output = output
        self.service = service
    }
}

/// A command run by `/bin/sh -c` or directly.
public struct Shell: Sendable {
    /// What to run.
    public enum Command: Sendable {
        /// A script for `/bin/sh -c`.
        case script(String)
        /// A program and its arguments, run without a shell.
        case argv([String])
    }

    /// What to run.
    public var command: Command
    /// The working directory, relative to the workflow file.
    public var cwd: String?
    /// Environment variables for this command, in file order.
    public var environment: [(name: String, value: String)]
    /// Wired inputs, each given to the command as an environment variable of that name.
    public var inputs: [(name: String, wire: Wire)]
    /// What becomes of stdout.
    public var output: OutputFormat
}

import Foundation

/// The `procflow` command: parses arguments, runs a subcommand, and exits.
public enum CommandLineTool {
    /// The version `procflow --version` prints.
    public static let version = "0.1.0"

    static let usage = """
        OVERVIEW: Run JSON workflows of procedures that pass data between steps.

        USAGE: procflow <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        The workflow subcommands (run, validate, graph) are not built yet.
        """

    /// Runs `procflow` with `arguments` (the first is the program name) and exits.
    public static func main(_ arguments: [String]) -> Never {
        exit(run(Array(arguments.dropFirst())))
    }

    /// Runs `procflow` with `arguments` (without the program name); returns the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        switch arguments.first {
        case nil, "-h", "--help", "help":
            print(usage)
            return 0
        case "--version":
            print(version)
            return 0
        case let argument?:
            FileHandle.standardError.write(
                Data("error: unknown command '\(argument)'\n\n\(usage)\n".utf8))
            return 2
        }
    }
}

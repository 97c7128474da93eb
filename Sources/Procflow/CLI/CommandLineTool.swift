import Foundation

/// The `procflow` command: parses arguments, runs a subcommand, and exits.
///
/// Exit statuses: 0 success; 1 a workflow step failed; 2 an invalid workflow or command line;
/// 130 and 143 after SIGINT and SIGTERM.
public enum CommandLineTool {
    /// The version `procflow --version` prints.
    public static let version = "0.1.0"

    /// The exit statuses `procflow` uses.
    public enum ExitStatus {
        /// Everything succeeded.
        public static let success: Int32 = 0
        /// A workflow step failed.
        public static let failure: Int32 = 1
        /// An invalid workflow or command line.
        public static let usage: Int32 = 2
    }

    static var help: String {
        var text = """
            OVERVIEW: Run JSON workflows of procedures that pass data between steps.

            USAGE: procflow <subcommand>

            OPTIONS:

            """
        text += CommandDescription.helpLine("--version", "Show the version.")
        text += CommandDescription.helpLine("-h, --help", "Show help information.")
        text += "\nSUBCOMMANDS:\n"
        for subcommand in Subcommand.allCases where subcommand.isListed {
            text += CommandDescription.helpLine(subcommand.rawValue, subcommand.command.abstract)
        }
        text += "\n  See 'procflow help <subcommand>' for detailed help.\n"
        return text
    }

    /// Runs `procflow` with `arguments` (the first is the program name) and exits.
    public static func main(_ arguments: [String]) -> Never {
        // Signal state inherited through exec must not change how commands are watched.
        SignalSetUp.unblockAll()
        SignalSetUp.prepare()
        exit(run(Array(arguments.dropFirst()), console: .standard))
    }

    /// Runs `procflow` with `arguments` (without the program name); returns the exit status.
    public static func run(_ arguments: [String], console: Console) -> Int32 {
        guard let first = arguments.first else {
            console.write(help)
            return ExitStatus.success
        }
        switch first {
        case "-h", "--help":
            console.write(help)
            return ExitStatus.success
        case "--version":
            console.write(version + "\n")
            return ExitStatus.success
        case "help":
            return runHelp(Array(arguments.dropFirst()), console: console)
        default:
            break
        }
        guard let subcommand = Subcommand(rawValue: first) else {
            let what =
                first.hasPrefix("-") ? "Unknown option '\(first)'" : "Unknown subcommand '\(first)'"
            let hint = first.hasPrefix("-") ? "" : subcommandHint(for: first)
            console.writeError(
                "error: \(what.escapingControlCharacters)\(hint)\nSee 'procflow help'.\n")
            return ExitStatus.usage
        }
        return subcommand.command.main(Array(arguments.dropFirst()), console: console)
    }

    private static func runHelp(_ arguments: [String], console: Console) -> Int32 {
        guard let name = arguments.first else {
            console.write(help)
            return ExitStatus.success
        }
        guard arguments.count == 1, let subcommand = Subcommand(rawValue: name) else {
            console.writeError(
                "error: Unknown subcommand '\(arguments.joined(separator: " ").escapingControlCharacters)'\(subcommandHint(for: name))\nSee 'procflow help'.\n"
            )
            return ExitStatus.usage
        }
        console.write(subcommand.command.description.help)
        return ExitStatus.success
    }

    /// " (did you mean 'validate'?)", or nothing.
    private static func subcommandHint(for name: String) -> String {
        Suggestion.closest(
            to: name, in: Subcommand.allCases.filter(\.isListed).map(\.rawValue)
        ).map {
            " (did you mean '\($0)'?)"
        } ?? ""
    }
}

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
        public static let success: Int32 = 0
        public static let failure: Int32 = 1
        public static let usage: Int32 = 2
    }

    static let commands: [CommandDescription] = [
        RunCommand.description, ValidateCommand.description, GraphCommand.description,
        ServeCommand.description,
    ]

    static var help: String {
        var text = """
            OVERVIEW: Run JSON workflows of procedures that pass data between steps.

            USAGE: procflow <subcommand>

            OPTIONS:

            """
        text += helpLine("--version", "Show the version.")
        text += helpLine("-h, --help", "Show help information.")
        text += "\nSUBCOMMANDS:\n"
        for command in commands { text += helpLine(command.name, command.abstract) }
        text += "\n  See 'procflow help <subcommand>' for detailed help.\n"
        return text
    }

    /// Runs `procflow` with `arguments` (the first is the program name) and exits.
    public static func main(_ arguments: [String]) -> Never {
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
        guard let command = commands.first(where: { $0.name == first }) else {
            let what =
                first.hasPrefix("-") ? "Unknown option '\(first)'" : "Unknown subcommand '\(first)'"
            let hint =
                first.hasPrefix("-")
                ? ""
                : Suggestion.closest(to: first, in: commands.map(\.name)).map {
                    " (did you mean '\($0)'?)"
                } ?? ""
            console.writeError("error: \(what)\(hint)\n\n\(help)")
            return ExitStatus.usage
        }
        let parsed: ParsedArguments
        do {
            parsed = try command.parse(Array(arguments.dropFirst()))
        } catch {
            console.writeError(
                "error: \(error.message)\nUsage: \(command.usage)\n  See 'procflow help \(command.name)' for more information.\n"
            )
            return ExitStatus.usage
        }
        if parsed.wantsHelp {
            console.write(command.help)
            return ExitStatus.success
        }
        switch command.name {
        case RunCommand.description.name: return RunCommand.run(parsed, console: console)
        case ValidateCommand.description.name: return ValidateCommand.run(parsed, console: console)
        case GraphCommand.description.name: return GraphCommand.run(parsed, console: console)
        default: return ServeCommand.run(parsed, console: console)
        }
    }

    private static func runHelp(_ arguments: [String], console: Console) -> Int32 {
        guard let name = arguments.first else {
            console.write(help)
            return ExitStatus.success
        }
        guard arguments.count == 1, let command = commands.first(where: { $0.name == name }) else {
            let hint =
                Suggestion.closest(to: name, in: commands.map(\.name)).map {
                    " (did you mean '\($0)'?)"
                } ?? ""
            console.writeError(
                "error: Unknown subcommand '\(arguments.joined(separator: " "))'\(hint)\n\n\(help)")
            return ExitStatus.usage
        }
        console.write(command.help)
        return ExitStatus.success
    }

    /// Reads `--var name=value` options.
    static func variables(_ parsed: ParsedArguments) throws(ArgumentError) -> [(
        name: String, value: String
    )] {
        try (parsed.values["var"] ?? []).map {
            (text) throws(ArgumentError) -> (name: String, value: String) in
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw ArgumentError(
                    message:
                        "The value '\(text)' is invalid for '--var <name=value>': expected name=value"
                )
            }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }
    }

    /// Loads the workflow named on the command line, printing any problems.
    static func loadWorkflow(
        _ parsed: ParsedArguments, command: CommandDescription, console: Console
    ) -> Workflow? {
        let overrides: [(name: String, value: String)]
        do {
            overrides = try variables(parsed)
        } catch {
            console.writeError("error: \(error.message)\nUsage: \(command.usage)\n")
            return nil
        }
        do {
            return try WorkflowLoader.load(path: parsed.positionals[0], overrides: overrides)
        } catch {
            let colored = console.colorsErrors
            for diagnostic in error.diagnostics {
                console.writeError(diagnostic.rendered(colored: colored) + "\n")
            }
            let count = error.diagnostics.count
            console.writeError("\(parsed.positionals[0]): \(count) error\(count == 1 ? "" : "s")\n")
            return nil
        }
    }
}

/// `procflow validate FILE`: checks a workflow without running it.
enum ValidateCommand {
    static let description = CommandDescription(
        name: "validate", abstract: "Check a workflow without running it.",
        discussion: """
            Reports every problem in the file, each with its line, column and JSON Pointer, on
            standard error, and exits with status 2; or prints a one-line summary and exits 0.
            """,
        arguments: [.init(name: "file", help: "The workflow file.")],
        options: [
            .value(
                "var", "name=value", help: "Set a variable the workflow declares in vars.",
                repeatable: true)
        ])

    static func run(_ parsed: ParsedArguments, console: Console) -> Int32 {
        guard
            let workflow = CommandLineTool.loadWorkflow(
                parsed, command: description, console: console)
        else {
            return CommandLineTool.ExitStatus.usage
        }
        let counts = workflow.counts
        var summary = "\(workflow.path): valid workflow \"\(workflow.name)\": "
        summary += plural(counts.steps, "procedure")
        if counts.containers > 0 {
            summary += " (\(counts.containers) group\(counts.containers == 1 ? "" : "s") or branch"
            summary += counts.containers == 1 ? ")" : "es)"
        }
        summary += ", " + plural(counts.edges, "edge")
        console.write(summary + "\n")
        return CommandLineTool.ExitStatus.success
    }
}

/// `procflow graph FILE`: prints the dependency graph.
enum GraphCommand {
    static let description = CommandDescription(
        name: "graph", abstract: "Print a workflow's dependency graph.",
        discussion: """
            Formats: text, an indented tree with each procedure's incoming edges; dot, for
            Graphviz, with groups as clusters; mermaid, a flowchart with groups as subgraphs;
            json, nodes and edges typed dependency, input or condition.
            """,
        arguments: [.init(name: "file", help: "The workflow file.")],
        options: [
            .value(
                "format", "format", help: "The output format; text by default.",
                choices: GraphFormat.allCases.map(\.rawValue)),
            .value(
                "var", "name=value", help: "Set a variable the workflow declares in vars.",
                repeatable: true),
        ])

    static func run(_ parsed: ParsedArguments, console: Console) -> Int32 {
        guard
            let workflow = CommandLineTool.loadWorkflow(
                parsed, command: description, console: console)
        else {
            return CommandLineTool.ExitStatus.usage
        }
        let format = parsed.value("format").flatMap(GraphFormat.init(rawValue:)) ?? .text
        console.write(format.render(WorkflowGraph(workflow)))
        return CommandLineTool.ExitStatus.success
    }
}

/// "1 procedure", "2 procedures".
func plural(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}

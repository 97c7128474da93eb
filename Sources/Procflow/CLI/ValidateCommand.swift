/// `procflow validate FILE`: checks a workflow without running it.
struct ValidateCommand: ParsableCommand {
    enum Option: String, CommandOption {
        case variable = "var"

        var spec: OptionSpec { WorkflowArguments.variableOption }
    }

    static let name = "validate"
    static let abstract = "Check a workflow without running it."
    static let discussion: String? = """
        Reports every problem in the file, each with its line, column and JSON Pointer, on
        standard error, and exits with status 2; or prints a one-line summary and exits 0.
        """
    static let arguments = [WorkflowArguments.fileArgument]

    let workflow: WorkflowArguments

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        workflow = try WorkflowArguments(
            file: arguments.positionals[0], variables: arguments.values(.variable))
    }

    func run(console: Console) -> Int32 {
        guard let workflow = workflow.load(console: console) else {
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

/// A command that reads one workflow, takes no option but `--var`, and exits 2 when the
/// workflow does not load: it only says what to do with the workflow once loaded.
protocol WorkflowCommand: ParsableCommand where Option == WorkflowArguments.VariablesOption {
    /// The workflow's file and variables.
    var workflow: WorkflowArguments { get }

    init(workflow: WorkflowArguments)

    /// Does the command's work on the loaded `workflow`; returns the exit status.
    func run(_ workflow: Workflow, console: Console) -> Int32
}

extension WorkflowCommand {
    /// The command's file argument.
    static var arguments: [CommandDescription.Argument] { [WorkflowArguments.fileArgument] }

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        self.init(workflow: try WorkflowArguments(arguments))
    }

    func run(console: Console) -> Int32 {
        guard let workflow = workflow.load(console: console) else {
            return CommandLineTool.ExitStatus.usage
        }
        return run(workflow, console: console)
    }
}

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

    /// Loads the workflow and does the command's work. The process ends after it, so the
    /// workflow and its file's syntax tree are left for the system to reclaim (see
    /// ``LeftToExit``).
    func run(console: Console) -> Int32 {
        guard let workflow = workflow.load(console: console, freeingTree: false) else {
            return CommandLineTool.ExitStatus.usage
        }
        let status = run(workflow, console: console)
        LeftToExit.keep(workflow)
        return status
    }
}

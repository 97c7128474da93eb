/// `procflow validate FILE`: checks a workflow without running it.
struct ValidateCommand: WorkflowCommand {
    static let name = "validate"
    static let abstract = "Check a workflow without running it."
    static let discussion: String? = """
        Reports every problem in the file, each with its line, column and JSON Pointer, on
        standard error, and exits with status 2; or prints a one-line summary and exits 0.
        """

    let workflow: WorkflowArguments

    func run(_ workflow: Workflow, console: Console) -> Int32 {
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

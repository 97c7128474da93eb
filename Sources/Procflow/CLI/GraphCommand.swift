/// `procflow graph FILE`: prints the dependency graph.
struct GraphCommand: ParsableCommand {
    enum Option: String, CommandOption {
        case format
        case variable = "var"
        case file

        var spec: OptionSpec {
            switch self {
            case .file:
                return WorkflowArguments.fileOption
            case .format:
                return .value(
                    "format", "format", help: "The output format; text by default.",
                    choices: GraphFormat.allCases.map(\.rawValue))
            case .variable:
                return WorkflowArguments.variableOption
            }
        }
    }

    static let name = "graph"
    static let abstract = "Print a workflow's dependency graph."
    static let discussion: String? = """
        Formats: text, an indented tree with each procedure's incoming edges; dot, for
        Graphviz, with groups as clusters; mermaid, a flowchart with groups as subgraphs;
        json, nodes and edges typed dependency, input or condition.
        """
    static let arguments = [WorkflowArguments.fileArgument]

    let workflow: WorkflowArguments
    let format: GraphFormat

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        let (file, _) = try WorkflowArguments.file(
            positionals: arguments.positionals, option: arguments.value(.file), takesTargets: false)
        workflow = try WorkflowArguments(file: file, variables: arguments.values(.variable))
        // The parser has checked the value against the choices.
        format = arguments.value(.format).flatMap(GraphFormat.init(rawValue:)) ?? .text
    }

    func run(console: Console) -> Int32 {
        guard let workflow = workflow.load(console: console) else {
            return CommandLineTool.ExitStatus.usage
        }
        console.write(format.render(WorkflowGraph(workflow)))
        return CommandLineTool.ExitStatus.success
    }
}

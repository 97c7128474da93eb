/// `procflow list FILE`: every step with its kind and description, indented by group, as
/// `task --list` and `just --list` list theirs.
struct ListCommand: ParsableCommand {
    enum Option: String, CommandOption {
        case ids
        case variable = "var"
        case file

        var spec: OptionSpec {
            switch self {
            case .ids:
                return .flag(
                    rawValue, help: "Print only the ids, one a line (for shell completion).")
            case .variable: return WorkflowArguments.variableOption
            case .file: return WorkflowArguments.fileOption
            }
        }
    }

    static let name = "list"
    static let abstract = "List a workflow's steps with their kinds and descriptions."
    static let discussion: String? = """
        One line per step, in file order, nested steps indented under their group or branch
        (a branch's steps with the case that runs them): the id, the kind, and the
        description, when the step has one. With --ids, only the ids.
        """
    static let arguments = [WorkflowArguments.fileArgument]

    let workflow: WorkflowArguments
    let idsOnly: Bool

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        let (file, _) = try WorkflowArguments.file(
            positionals: arguments.positionals, option: arguments.value(.file), takesTargets: false)
        workflow = try WorkflowArguments(file: file, variables: arguments.values(.variable))
        idsOnly = arguments.isSet(.ids)
    }

    func run(console: Console) -> Int32 {
        guard let workflow = workflow.load(console: console) else {
            return CommandLineTool.ExitStatus.usage
        }
        let graph = WorkflowGraph(workflow)
        if idsOnly {
            console.write(graph.nodes.map { $0.id.escapingControlCharacters + "\n" }.joined())
        } else {
            console.write(Self.listing(graph))
        }
        return CommandLineTool.ExitStatus.success
    }

    /// The lines `procflow list` prints: a heading, then a step a line, columns aligned.
    static func listing(_ graph: WorkflowGraph) -> String {
        let names = graph.nodes.map { String(repeating: "  ", count: $0.depth) + $0.id }
        let kinds = graph.nodes.map { node in
            node.branchCase.map { "\(node.kind) (when \(node.parent!) \($0))" } ?? node.kind
        }
        let nameWidth = names.map(\.count).max() ?? 0
        let kindWidth = kinds.map(\.count).max() ?? 0
        var text = "Steps of \(graph.name) (\(plural(graph.nodes.count, "step"))):\n"
        for (index, node) in graph.nodes.enumerated() {
            var line = "  " + names[index].padding(toLength: nameWidth, withPad: " ", startingAt: 0)
            line += "  " + kinds[index].padding(toLength: kindWidth, withPad: " ", startingAt: 0)
            if let description = node.description {
                line += "  # " + description.escapingControlCharacters
            }
            text += String(line.reversed().drop { $0 == " " }.reversed()) + "\n"
        }
        return text
    }
}

/// The workflow a command reads: its file, and the `--var` values that override its
/// variables.
struct WorkflowArguments {
    /// The `--var name=value` option, the same for every command that reads a workflow.
    static let variableOption = OptionSpec.value(
        "var", "name=value", help: "Set a variable the workflow declares in vars.",
        repeatable: true)

    /// The help of the `<file>` argument.
    static let fileArgument = CommandDescription.Argument(
        name: "file", help: "The workflow file.")

    /// The options of a command that reads a workflow and takes nothing but its variables.
    enum VariablesOption: String, CommandOption {
        case variable = "var"

        var spec: OptionSpec { WorkflowArguments.variableOption }
    }

    let file: String
    let variables: [(name: String, value: String)]

    /// The file and the variables of a command whose only option is `--var`.
    ///
    /// - Throws: an ``ArgumentError`` for a `--var` value that is not `name=value`.
    init(_ arguments: ParsedArguments<VariablesOption>) throws(ArgumentError) {
        try self.init(file: arguments.positionals[0], variables: arguments.values(.variable))
    }

    /// - Throws: an ``ArgumentError`` for a `--var` value that is not `name=value`.
    init(file: String, variables: [String]) throws(ArgumentError) {
        self.file = file
        self.variables = try variables.map { (text) throws(ArgumentError) in
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw .invalidValue(text, for: Self.variableOption, expected: "name=value")
            }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }
    }

    /// Loads the workflow, printing every problem found on standard error.
    func load(console: Console) -> Workflow? {
        loadWithBytes(console: console)?.workflow
    }

    /// Loads the workflow, printing every problem found on standard error; returns it with
    /// the bytes it was read from.
    func loadWithBytes(console: Console) -> (workflow: Workflow, bytes: [UInt8])? {
        do {
            let bytes = try WorkflowLoader.read(path: file)
            return (try WorkflowLoader.load(bytes: bytes, file: file, overrides: variables), bytes)
        } catch {
            console.writeError(error.report(file: file, colored: console.colorsErrors))
            return nil
        }
    }
}

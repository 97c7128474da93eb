import Foundation

/// The workflow a command reads: its file, and the `--var` values that override its
/// variables.
struct WorkflowArguments {
    /// The `--var name=value` option, the same for every command that reads a workflow.
    static let variableOption = OptionSpec.value(
        "var", "name=value", help: "Set a variable the workflow declares in vars.",
        repeatable: true)

    /// The `--file`/`-f` option: the workflow file, instead of the first argument.
    static let fileOption = OptionSpec.value(
        "file", "file", help: "The workflow file, when it is not the first argument."
    ).short("f")

    /// The help of the `<file>` argument.
    static let fileArgument = CommandDescription.Argument(
        name: "file",
        help:
            "The workflow file; by default \(DefaultWorkflowFile.names[0]) in the current directory or the nearest one above it.",
        isOptional: true)

    /// The options of a command that reads a workflow and takes nothing but its variables.
    enum VariablesOption: String, CommandOption {
        case variable = "var"
        case file

        var spec: OptionSpec {
            switch self {
            case .variable: return WorkflowArguments.variableOption
            case .file: return WorkflowArguments.fileOption
            }
        }
    }

    let file: String
    let variables: [(name: String, value: String)]

    /// The file and the variables of a command whose only options are `--var` and `--file`.
    ///
    /// - Throws: an ``ArgumentError`` for a `--var` value that is not `name=value`, or when no
    ///   file is named and none is found.
    init(_ arguments: ParsedArguments<VariablesOption>) throws(ArgumentError) {
        let (file, _) = try Self.file(
            positionals: arguments.positionals, option: arguments.value(.file), takesTargets: false)
        try self.init(file: file, variables: arguments.values(.variable))
    }

    /// The workflow file the command line names, and the arguments after it (a run's
    /// targets): `--file`'s value, else the first argument, else the default file found from
    /// the current directory up. For a command that takes targets, a first argument that is
    /// neither an existing file nor named `.json`/`.jsonc` is a target of the default file,
    /// when there is one: `procflow run test`.
    ///
    /// - Throws: an ``ArgumentError`` when no file is named and none is found, or when a
    ///   command without targets is given more arguments.
    static func file(positionals: [String], option: String?, takesTargets: Bool)
        throws(ArgumentError) -> (file: String, rest: [String])
    {
        var rest = positionals[...]
        let file: String
        if let option {
            file = option
        } else if let first = rest.first,
            !takesTargets || DefaultWorkflowFile.namesAFile(first)
                || DefaultWorkflowFile.find() == nil
        {
            file = first
            rest = rest.dropFirst()
        } else if let found = DefaultWorkflowFile.find() {
            file = found
        } else {
            throw ArgumentError(message: DefaultWorkflowFile.notFound())
        }
        if !takesTargets, let extra = rest.first {
            throw ArgumentError(message: "Unexpected argument '\(extra)'")
        }
        return (file, Array(rest))
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
    ///
    /// - Parameter freeingTree: see ``WorkflowLoader/load(bytes:file:overrides:freeingTree:)``.
    func load(console: Console, freeingTree: Bool = true) -> Workflow? {
        loadWithBytes(console: console, freeingTree: freeingTree)?.workflow
    }

    /// Loads the workflow, printing every problem found on standard error; returns it with
    /// the bytes it was read from.
    ///
    /// - Parameter plans: the state directory whose plan of the workflow (``WorkflowPlan``)
    ///   to read, and to write after a full load; `nil` for none.
    func loadWithBytes(
        console: Console, freeingTree: Bool = true, plans: StateDirectory? = nil
    ) -> (workflow: Workflow, bytes: [UInt8])? {
        do {
            // Seen before it is read: a status that can be trusted then tells the content.
            let trusted =
                plans == nil
                ? nil
                : WorkflowPlan.trustedStatus(FileSystem.status(file), seenAt: FileSystem.now())
            let bytes = try WorkflowLoader.read(path: file)
            let key = plans == nil ? nil : WorkflowPlan.Key(file: file, overrides: variables)
            if let plans, let key {
                switch WorkflowPlan.read(for: key, bytes: bytes, trusted: trusted, in: plans) {
                case .loaded(let workflow, let learnt):
                    if learnt {
                        WorkflowPlan.write(
                            workflow, for: key, bytes: bytes, trusted: trusted, in: plans)
                    }
                    return (workflow, bytes)
                case .noPlan: break
                case .unusable(let reason):
                    console.writeError(
                        "warning: not using the workflow's plan \(plans.plan(for: file).escapingControlCharacters): \(reason); loading the workflow in full\n"
                    )
                }
            }
            let workflow = try WorkflowLoader.load(
                bytes: bytes, file: file, overrides: variables, freeingTree: freeingTree)
            if let plans, let key {
                WorkflowPlan.write(workflow, for: key, bytes: bytes, trusted: trusted, in: plans)
            }
            return (workflow, bytes)
        } catch {
            console.writeError(error.report(file: file, colored: console.colorsErrors))
            return nil
        }
    }
}

/// The workflow file a command reads when none is named: `procflow.json` (or
/// `procflow.jsonc`) in the current directory, else in the nearest directory above it, as
/// `task` and `just` find theirs.
enum DefaultWorkflowFile {
    /// The names looked for, in order.
    static let names = ["procflow.json", "procflow.jsonc"]

    /// The file found from `directory` up: its name as is in `directory` itself, else its
    /// absolute path; `nil` if there is none.
    static func find(from directory: String = FileManager.default.currentDirectoryPath)
        -> String?
    {
        var current = URL(fileURLWithPath: directory).standardizedFileURL.path
        var isStart = true
        while true {
            for name in names where isRegularFile(current + "/" + name) {
                return isStart ? name : (current == "/" ? "" : current) + "/" + name
            }
            guard current != "/" else { return nil }
            current = (current as NSString).deletingLastPathComponent
            if current.isEmpty { current = "/" }
            isStart = false
        }
    }

    /// Whether a command-line word names a workflow file rather than a step: an existing
    /// file, or a name ending `.json` or `.jsonc`.
    static func namesAFile(_ word: String) -> Bool {
        word.hasSuffix(".json") || word.hasSuffix(".jsonc") || isRegularFile(word)
    }

    /// The error when no file is named and none is found, saying where procflow looked.
    static func notFound(from directory: String = FileManager.default.currentDirectoryPath)
        -> String
    {
        let path = URL(fileURLWithPath: directory).standardizedFileURL.path
        return
            "no workflow file given, and no \(names[0]) (or \(names[1])) in \(path) or any directory above it: name one, or write one with 'procflow init'"
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }
}

/// `procflow cache clean|prune [FILE]`: empties or bounds what procflow remembers between
/// runs.
struct CacheCommand: ParsableCommand {
    enum Option: String, CommandOption {
        case maxSize = "max-size"
        case stateDir = "state-dir"
        case file

        var spec: OptionSpec {
            switch self {
            case .maxSize:
                return .value(
                    rawValue, "size",
                    help:
                        "With prune: the most the stored files may take, in bytes or with K, M or G (1024-based)."
                )
            case .stateDir:
                return StateDirectoryOption.spec
            case .file:
                return WorkflowArguments.fileOption
            }
        }
    }

    /// What to do.
    enum Action: String, CaseIterable {
        case clean
        case prune
    }

    static let name = "cache"
    static let abstract = "Empty, or bound the size of, what procflow remembers between runs."
    static let discussion: String? = """
        clean removes everything procflow keeps in the state directory: every step runs on
        the next run. prune --max-size SIZE removes the least recently used stored files and
        histories until they take at most SIZE (runs keep the store under 1G themselves). The
        state directory is --state-dir, else .procflow beside the workflow FILE (or -f FILE),
        else beside the procflow.json found from the current directory up, else .procflow in
        the current directory.
        """
    static let arguments = [
        CommandDescription.Argument(name: "action", help: "clean or prune."),
        CommandDescription.Argument(
            name: "file", help: "The workflow whose state directory is meant.", isOptional: true),
    ]

    let action: Action
    let directory: StateDirectory
    let maximumSize: Int64?

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        let actionName = arguments.positionals[0]
        guard let action = Action(rawValue: actionName) else {
            throw ArgumentError(
                message:
                    "Unknown action '\(actionName)': expected clean or prune\(Suggestion.hint(for: actionName, in: Action.allCases.map(\.rawValue)))"
            )
        }
        self.action = action
        if arguments.value(.file) != nil, arguments.positionals.count > 1 {
            throw ArgumentError(message: "Unexpected argument '\(arguments.positionals[1])'")
        }
        if let path = arguments.value(.stateDir) {
            directory = StateDirectory(path: resolve(path, in: "."))
        } else if let file = arguments.value(.file)
            ?? arguments.positionals.dropFirst().first ?? DefaultWorkflowFile.find()
        {
            directory = .beside(workflow: file)
        } else {
            directory = StateDirectory(path: resolve(".procflow", in: "."))
        }
        maximumSize = try arguments.value(.maxSize).map { (text) throws(ArgumentError) in
            guard let size = Self.size(text) else {
                throw .invalidValue(
                    text, for: Option.maxSize.spec, expected: "a size such as 500M or 2G")
            }
            return size
        }
        switch (action, maximumSize) {
        case (.prune, nil): throw ArgumentError(message: "prune needs --max-size")
        case (.clean, .some): throw ArgumentError(message: "clean takes no --max-size")
        default: break
        }
    }

    /// Bytes, or a number with K, M or G (1024-based, an `iB` or `B` after it allowed).
    static func size(_ text: String) -> Int64? {
        var digits = Substring(text)
        for suffix in ["iB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
            digits = digits.dropLast(suffix.count)
            break
        }
        var unit: Int64 = 1
        switch digits.last {
        case "K", "k": unit = 1 << 10
        case "M", "m": unit = 1 << 20
        case "G", "g": unit = 1 << 30
        default: break
        }
        if unit > 1 { digits = digits.dropLast() }
        guard let number = Double(digits), number >= 0, number * Double(unit) < 9e18 else {
            return nil
        }
        return Int64(number * Double(unit))
    }

    func run(console: Console) -> Int32 {
        let location = directory.path.escapingControlCharacters
        switch action {
        case .clean:
            let removed = directory.clean()
            console.write("removed \(plural(removed, "file")) from \(location)\n")
        case .prune:
            let report = directory.prune(toAtMost: maximumSize ?? 0)
            console.write(
                "removed \(plural(report.removed, "file")) (\(formatSize(Int(report.freed)))) from \(location); \(formatSize(Int(report.remaining))) stored\n"
            )
        }
        return CommandLineTool.ExitStatus.success
    }
}

/// A subcommand: how it is described, how its arguments become typed values, and what it
/// does.
protocol ParsableCommand {
    /// The command's options.
    associatedtype Option: CommandOption

    /// The command's name, arguments and help; its options are `Option`'s.
    static var name: String { get }
    static var abstract: String { get }
    static var discussion: String? { get }
    static var arguments: [CommandDescription.Argument] { get }

    /// Reads what was typed into the command's typed options.
    ///
    /// - Throws: an ``ArgumentError`` for a value that does not fit its option.
    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError)

    /// Runs the command; returns the exit status.
    func run(console: Console) -> Int32
}

extension ParsableCommand {
    /// The command's description, options included.
    static var description: CommandDescription {
        CommandDescription(
            name: name, abstract: abstract, discussion: discussion, arguments: arguments,
            // A closure, not the key path `\.spec`: a key path in this generic context is made
            // at run time, from its pattern, at every start (0.23 M instructions).
            options: Option.allCases.map { $0.spec })
    }

    /// Parses `arguments` (those after the command's name) and runs the command, printing help
    /// or a usage error instead where they are due.
    static func main(_ arguments: [String], console: Console) -> Int32 {
        let description = description
        do {
            let parsed = try description.parse(arguments, as: Option.self)
            if parsed.wantsHelp {
                console.write(description.help)
                return CommandLineTool.ExitStatus.success
            }
            return try Self(parsed).run(console: console)
        } catch {
            return usageError(error.message, console: console)
        }
    }

    /// Prints a usage error and where help is, in two lines; returns the exit status for it.
    static func usageError(_ message: String, console: Console) -> Int32 {
        console.writeError(
            "error: \(message.escapingControlCharacters)\nSee 'procflow help \(name)'.\n")
        return CommandLineTool.ExitStatus.usage
    }
}

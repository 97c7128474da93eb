/// A subcommand's name, arguments and options, for parsing and for its help text.
///
/// Hand-written, following swift-argument-parser's conventions: `--name value` and
/// `--name=value`, `-h`/`--help` on every command, `--` to end options, and help laid out
/// as OVERVIEW, USAGE, ARGUMENTS, OPTIONS.
struct CommandDescription {
    /// A positional argument.
    struct Argument {
        let name: String
        let help: String
        /// Whether it takes any number of values (only the last argument may).
        var isVariadic = false
        /// Whether it may be left out; only the last arguments may be.
        var isOptional = false

        /// `<name>`, `[<name>]` if it may be left out, `[<name> ...]` if it takes any number.
        var usage: String {
            isVariadic ? "[<\(name)> ...]" : isOptional ? "[<\(name)>]" : "<\(name)>"
        }
    }

    let name: String
    let abstract: String
    let discussion: String?
    let arguments: [Argument]
    let options: [OptionSpec]

    /// `procflow name <argument> [--option <value>] …`.
    var usage: String {
        var parts = ["procflow", name]
        parts += arguments.map(\.usage)
        for option in options {
            parts.append(option.isRepeatable ? "[\(option.usage) ...]" : "[\(option.usage)]")
        }
        return parts.joined(separator: " ")
    }

    /// What `procflow help NAME` prints.
    var help: String {
        var text = "OVERVIEW: \(abstract)\n"
        if let discussion { text += "\n\(discussion)\n" }
        text += "\nUSAGE: \(usage)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in arguments {
                text += Self.helpLine(argument.usage, argument.help)
            }
        }
        text += "\nOPTIONS:\n"
        for option in options {
            var help = option.help
            if let choices = option.choices {
                help += " (values: \(choices.joined(separator: ", ")))"
            }
            if option.isRepeatable { help += " Can be repeated." }
            text += Self.helpLine(option.helpName, help)
        }
        text += Self.helpLine("-h, --help", "Show help information.")
        return text
    }

    /// One line of a help listing: the name padded to a column, then the help.
    static func helpLine(_ name: String, _ help: String) -> String {
        let padded = "  " + name
        if padded.count < 26 {
            return padded + String(repeating: " ", count: 26 - padded.count) + help + "\n"
        }
        return padded + "\n" + String(repeating: " ", count: 26) + help + "\n"
    }

    /// Parses the arguments that follow the subcommand's name.
    func parse<Option: CommandOption>(_ arguments: [String], as: Option.Type) throws(ArgumentError)
        -> ParsedArguments<Option>
    {
        var parsed = ParsedArguments<Option>()
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument == "-h" || argument == "--help" {
                parsed.wantsHelp = true
            } else {
                try parseOption(argument, rest: &remaining, into: &parsed)
            }
        }
        if parsed.wantsHelp { return parsed }
        let required = self.arguments.filter { !$0.isVariadic && !$0.isOptional }
        if parsed.positionals.count < required.count {
            throw ArgumentError(
                message: "Missing expected argument '<\(required[parsed.positionals.count].name)>'"
            )
        }
        if self.arguments.last?.isVariadic != true,
            parsed.positionals.count > self.arguments.count
        {
            throw ArgumentError(
                message: "Unexpected argument '\(parsed.positionals[self.arguments.count])'")
        }
        return parsed
    }

    /// Parses one `--name`, `--name value` or `--name=value`.
    private func parseOption<Option: CommandOption>(
        _ argument: String, rest: inout ArraySlice<String>,
        into parsed: inout ParsedArguments<Option>
    ) throws(ArgumentError) {
        var name: String
        var inlineValue: String?
        if argument.hasPrefix("--") {
            name = String(argument.dropFirst(2))
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
        } else {
            // `-j 4`, `-j4`, `-n`, and flags together: `-nv`, `-nj4`.
            let letter = argument.dropFirst().first
            guard let spec = options.first(where: { $0.short != nil && $0.short == letter }) else {
                throw ArgumentError(message: "Unknown option '-\(letter.map(String.init) ?? "")'")
            }
            name = spec.name
            let attached = argument.dropFirst(2)
            if !attached.isEmpty {
                if spec.valueName == nil {
                    // The letters after a flag are flags (or an option) of their own.
                    rest.insert("-" + attached, at: rest.startIndex)
                } else {
                    inlineValue = String(attached)
                }
            }
        }
        guard let option = Option(rawValue: name) else {
            let hint =
                Suggestion.closest(to: name, in: options.map(\.name)).map {
                    " (did you mean '--\($0)'?)"
                } ?? ""
            throw ArgumentError(message: "Unknown option '--\(name)'\(hint)")
        }
        let spec = option.spec
        guard spec.valueName != nil else {
            if inlineValue != nil {
                throw ArgumentError(message: "The flag '--\(name)' does not take a value")
            }
            parsed.set(option)
            return
        }
        guard let value = inlineValue ?? rest.popFirst() else {
            throw ArgumentError(message: "Missing value for '\(spec.usage)'")
        }
        if let choices = spec.choices, !choices.contains(value) {
            throw .invalidValue(
                value, for: spec, expected: "one of \(choices.joined(separator: ", "))")
        }
        if !spec.isRepeatable, parsed.has(option) {
            throw ArgumentError(message: "The option '--\(name)' was given more than once")
        }
        parsed.append(value, for: option)
    }
}

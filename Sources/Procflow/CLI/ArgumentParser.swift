/// A subcommand's arguments and options, for parsing and for its help text.
///
/// Hand-written, following swift-argument-parser's conventions: `--name value` and
/// `--name=value`, `-h`/`--help` on every command, `--` to end options, and help laid out
/// as OVERVIEW, USAGE, ARGUMENTS, OPTIONS.
struct CommandDescription {
    struct Argument {
        let name: String
        let help: String
    }

    struct Option {
        let name: String
        let valueName: String?
        let help: String
        let isRepeatable: Bool
        let choices: [String]?

        /// An option that takes a value.
        static func value(
            _ name: String, _ valueName: String, help: String, repeatable: Bool = false,
            choices: [String]? = nil
        ) -> Option {
            Option(
                name: name, valueName: valueName, help: help, isRepeatable: repeatable,
                choices: choices)
        }

        /// A flag, present or not.
        static func flag(_ name: String, help: String) -> Option {
            Option(name: name, valueName: nil, help: help, isRepeatable: false, choices: nil)
        }

        var usage: String {
            guard let valueName else { return "--\(name)" }
            return "--\(name) <\(valueName)>"
        }
    }

    let name: String
    let abstract: String
    let discussion: String?
    let arguments: [Argument]
    let options: [Option]

    var usage: String {
        var parts = ["procflow", name]
        parts += arguments.map { "<\($0.name)>" }
        for option in options {
            parts.append(option.isRepeatable ? "[\(option.usage) ...]" : "[\(option.usage)]")
        }
        return parts.joined(separator: " ")
    }

    var help: String {
        var text = "OVERVIEW: \(abstract)\n"
        if let discussion { text += "\n\(discussion)\n" }
        text += "\nUSAGE: \(usage)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in arguments { text += helpLine("<\(argument.name)>", argument.help) }
        }
        text += "\nOPTIONS:\n"
        for option in options {
            var help = option.help
            if let choices = option.choices {
                help += " (values: \(choices.joined(separator: ", ")))"
            }
            if option.isRepeatable { help += " Can be repeated." }
            text += helpLine(option.usage, help)
        }
        text += helpLine("-h, --help", "Show help information.")
        return text
    }
}

/// One line of a help listing: the name padded to a column, then the help.
func helpLine(_ name: String, _ help: String) -> String {
    let padded = "  " + name
    if padded.count < 26 {
        return padded + String(repeating: " ", count: 26 - padded.count) + help + "\n"
    }
    return padded + "\n" + String(repeating: " ", count: 26) + help + "\n"
}

/// What the user typed, sorted out.
struct ParsedArguments {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var wantsHelp = false

    func value(_ name: String) -> String? { values[name]?.last }
}

/// A mistake on the command line.
struct ArgumentError: Error, Equatable {
    let message: String
}

extension CommandDescription {
    /// Parses the arguments that follow the subcommand's name.
    func parse(_ arguments: [String]) throws(ArgumentError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                parsed.wantsHelp = true
                continue
            }
            guard argument.hasPrefix("--") else {
                throw ArgumentError(message: "Unknown option '\(argument)'")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = options.first(where: { $0.name == name }) else {
                let hint =
                    Suggestion.closest(to: name, in: options.map(\.name)).map {
                        " (did you mean '--\($0)'?)"
                    } ?? ""
                throw ArgumentError(message: "Unknown option '--\(name)'\(hint)")
            }
            guard option.valueName != nil else {
                if inlineValue != nil {
                    throw ArgumentError(message: "The flag '--\(name)' does not take a value")
                }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw ArgumentError(message: "Missing value for '\(option.usage)'")
            }
            if let choices = option.choices, !choices.contains(value) {
                throw ArgumentError(
                    message:
                        "The value '\(value)' is invalid for '\(option.usage)': expected one of \(choices.joined(separator: ", "))"
                )
            }
            if !option.isRepeatable, parsed.values[name] != nil {
                throw ArgumentError(message: "The option '--\(name)' was given more than once")
            }
            parsed.values[name, default: []].append(value)
        }
        if parsed.wantsHelp { return parsed }
        if parsed.positionals.count < self.arguments.count {
            throw ArgumentError(
                message:
                    "Missing expected argument '<\(self.arguments[parsed.positionals.count].name)>'"
            )
        }
        if parsed.positionals.count > self.arguments.count {
            throw ArgumentError(
                message: "Unexpected argument '\(parsed.positionals[self.arguments.count])'")
        }
        return parsed
    }
}

/// An option as the command line and the help text know it.
struct OptionSpec {
    /// The name after `--`.
    let name: String
    /// The value's placeholder in help, or `nil` for a flag.
    let valueName: String?
    let help: String
    let isRepeatable: Bool
    /// The values it accepts, when there is a fixed set.
    let choices: [String]?
    /// Its one-letter form (`j` for `-j`), if it has one.
    var short: Character? = nil

    /// An option that takes a value.
    static func value(
        _ name: String, _ valueName: String, help: String, repeatable: Bool = false,
        choices: [String]? = nil
    ) -> OptionSpec {
        OptionSpec(
            name: name, valueName: valueName, help: help, isRepeatable: repeatable,
            choices: choices)
    }

    /// A flag, present or not.
    static func flag(_ name: String, help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help, isRepeatable: false, choices: nil)
    }

    /// The option with the one-letter form `-letter` too.
    func short(_ letter: Character) -> OptionSpec {
        var copy = self
        copy.short = letter
        return copy
    }

    /// `--name <value>`, or `--name` for a flag.
    var usage: String {
        guard let valueName else { return "--\(name)" }
        return "--\(name) <\(valueName)>"
    }

    /// How help lists it: `-j, --max-concurrent <n>` where it has a short form.
    var helpName: String {
        short.map { "-\($0), " + usage } ?? usage
    }
}

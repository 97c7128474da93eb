/// The options of one command, as an enumeration: code reads an option by its case, so a
/// misspelt option name does not compile.
protocol CommandOption: RawRepresentable<String>, CaseIterable, Hashable, Sendable {
    /// How the option is spelt and explained; its `name` is the case's raw value.
    var spec: OptionSpec { get }
}

/// The options of a command that takes none: the case is there for the type to have a raw
/// value, and `allCases` leaves it out.
enum NoOption: String, CommandOption {
    case unused

    var spec: OptionSpec { .flag(rawValue, help: "") }
    static var allCases: [NoOption] { [] }
}

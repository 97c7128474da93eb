/// The options of one command, as an enumeration: code reads an option by its case, so a
/// misspelt option name does not compile.
protocol CommandOption: RawRepresentable<String>, CaseIterable, Hashable, Sendable {
    /// How the option is spelt and explained; its `name` is the case's raw value.
    var spec: OptionSpec { get }
}

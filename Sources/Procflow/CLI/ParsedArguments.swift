/// What the user typed after a command's name, sorted out by option.
struct ParsedArguments<Option: CommandOption> {
    var positionals: [String] = []
    var wantsHelp = false
    private var values: [Option: [String]] = [:]
    private var flags: Set<Option> = []

    /// The value given to `option` (the last, if repeatable).
    func value(_ option: Option) -> String? { values[option]?.last }

    /// Every value given to a repeatable `option`, in order.
    func values(_ option: Option) -> [String] { values[option] ?? [] }

    /// Whether the flag `option` was given.
    func isSet(_ option: Option) -> Bool { flags.contains(option) }

    /// Whether `option` was given at all.
    func has(_ option: Option) -> Bool { flags.contains(option) || values[option] != nil }

    mutating func append(_ value: String, for option: Option) {
        values[option, default: []].append(value)
    }

    mutating func set(_ option: Option) {
        flags.insert(option)
    }
}

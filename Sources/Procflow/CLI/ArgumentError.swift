/// A mistake on the command line, in a sentence that quotes what was typed.
struct ArgumentError: Error, Equatable {
    let message: String

    /// "The value 'x' is invalid for '--name <value>': expected …".
    static func invalidValue(_ value: String, for option: OptionSpec, expected: String)
        -> ArgumentError
    {
        ArgumentError(
            message: "The value '\(value)' is invalid for '\(option.usage)': expected \(expected)")
    }
}

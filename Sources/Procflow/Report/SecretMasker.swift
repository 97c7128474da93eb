/// Replaces the values of a run's secrets with `***` in everything procflow writes: the
/// terminal, events, every report and error message, and the commands' own output.
///
/// The run masks its events where they are made (``SecretValues``), before any writer escapes
/// or cuts them; this is the writers' second line, for what they write outside the events. It
/// looks for each value as it is and in the forms the writers put text in: JSON-escaped
/// (events, `--summary`, `--trace`), as markup (`--html`, `--junit`, in text and in
/// attributes), with control characters escaped (terminal diagnostics), and as a Markdown table
/// cell (the GitHub step summary).
struct SecretMasker: Sendable {
    /// The fewest characters a value, or a line of one, must have to be masked.
    static let minimumLength = SecretValues.minimumLength
    /// What a value is replaced with.
    static let mask = SecretValues.mask

    /// The values and the writers' forms of them.
    private let forms: SecretValues

    /// The masker of `values`.
    init(values: [String]) {
        forms = SecretValues(
            values,
            alsoAs: [
                JSONWriter.stringContent, { $0.markupEscaped() },
                { $0.markupEscaped(inAttribute: true) }, \.escapingControlCharacters,
                { $0.escapingControlCharacters.replacingOccurrences(of: "|", with: "\\|") },
            ])
    }

    /// Whether there is nothing to mask.
    var isEmpty: Bool { forms.isEmpty }

    /// The lines GitHub Actions reads to mask the values in its own log: `::add-mask::` for
    /// each value, a line at a time, as its documentation asks for values that span lines.
    static func githubMaskCommands(for values: [String]) -> String {
        // A command is one line: the values that span lines are told line by line.
        let lines = Set(
            SecretValues.pieces(of: values).filter { !$0.containsByte(UInt8(ascii: "\n")) }.map {
                $0.hasSuffix("\r") ? String($0.dropLast()) : $0
            })
        return lines.sorted().map { "::add-mask::\($0)\n" }.joined()
    }

    /// `text` with every value, and every written form of one, replaced.
    func mask(_ text: String) -> String {
        forms.mask(text)
    }
}

extension Console {
    /// This console with everything it writes passed through `masker`.
    func masking(_ masker: SecretMasker) -> Console {
        guard !masker.isEmpty else { return self }
        var console = self
        let (write, writeError) = (self.write, self.writeError)
        console.write = { write(masker.mask($0)) }
        console.writeError = { writeError(masker.mask($0)) }
        return console
    }
}

/// Replaces the values of a run's secrets with `***` in everything procflow writes: the
/// terminal, events, every report and error message, and the commands' own output.
///
/// A value is looked for as it is and in the forms the writers put text in: JSON-escaped (events,
/// `--summary`, `--trace`), as markup (`--html`, `--junit`, in text and in attributes), with
/// control characters escaped (terminal diagnostics), and as a Markdown table cell (the GitHub
/// step summary). A value that spans lines is also looked for line by line, as output arrives a
/// line at a time. Values shorter than ``minimumLength`` are not masked (as in GitHub Actions):
/// they would blank out ordinary words.
struct SecretMasker: Sendable {
    /// The fewest characters a value, or a line of one, must have to be masked.
    static let minimumLength = 4
    /// What a value is replaced with.
    static let mask = "***"

    /// What is looked for, longest first, so that a longer form is replaced before a part of
    /// it.
    private let needles: [String]

    /// The masker of `values`.
    init(values: [String]) {
        var pieces: Set<String> = []
        for value in values {
            pieces.insert(value)
            for line in value.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
                pieces.insert(String(line.last == "\r" ? line.dropLast() : line))
            }
        }
        var needles: Set<String> = []
        for piece in pieces where piece.count >= Self.minimumLength {
            let json = JSONWriter.string(.string(piece))
            needles.formUnion([
                piece, String(json.dropFirst().dropLast()), piece.markupEscaped(),
                piece.markupEscaped(inAttribute: true), piece.escapingControlCharacters,
                piece.escapingControlCharacters.replacingOccurrences(of: "|", with: "\\|"),
            ])
        }
        self.needles = needles.sorted {
            $0.utf8.count > $1.utf8.count || ($0.utf8.count == $1.utf8.count && $0 < $1)
        }
    }

    /// Whether there is nothing to mask.
    var isEmpty: Bool { needles.isEmpty }

    /// The lines GitHub Actions reads to mask the values in its own log: `::add-mask::` for
    /// each value, a line at a time, as its documentation asks for values that span lines.
    static func githubMaskCommands(for values: [String]) -> String {
        var lines: Set<String> = []
        for value in values {
            for line in value.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            where line.count >= minimumLength {
                lines.insert(String(line.last == "\r" ? line.dropLast() : line))
            }
        }
        return lines.sorted().map { "::add-mask::\($0)\n" }.joined()
    }

    /// `text` with every value replaced.
    func mask(_ text: String) -> String {
        guard !needles.isEmpty else { return text }
        var text = text
        for needle in needles where text.contains(needle) {
            text = text.replacingOccurrences(of: needle, with: Self.mask)
        }
        return text
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

/// All the problems found in one workflow file, in file order.
public struct WorkflowErrors: Error, Sendable, CustomStringConvertible {
    /// How many diagnostics are printed; the rest are counted ("… and 99,900 more").
    public static let printedLimit = 100

    /// Every problem, in file order.
    public var diagnostics: [Diagnostic]
    /// The files the diagnostics are located in, for the report to show their lines.
    var sources: SourceMap?
    /// The values of the secrets the file names, as far as it could be read: masked in the
    /// messages and the lines shown, as they are and as the file writes them in JSON.
    var secrets = SecretValues.none

    /// The problems `diagnostics`, in the files `sources` holds.
    init(diagnostics: [Diagnostic], sources: SourceMap? = nil) {
        self.diagnostics = diagnostics
        self.sources = sources
    }

    /// The first ``printedLimit`` diagnostics, one per line.
    public var description: String {
        rendered(colored: false, snippets: false)
    }

    /// What a command prints: the first ``printedLimit`` diagnostics, each located one
    /// followed by its line with a caret under the text at fault, a line counting the rest if
    /// there are more, and a last line counting them all, naming `file`.
    public func report(file: String, colored: Bool) -> String {
        let count = diagnostics.count
        return rendered(colored: colored, snippets: true) + "\n"
            + "\(file.escapingControlCharacters): \(plural(count, "error"))\n"
    }

    private func rendered(colored: Bool, snippets: Bool) -> String {
        var lines: [String] = []
        for diagnostic in diagnostics.prefix(Self.printedLimit) {
            lines.append(diagnostic.rendered(colored: colored))
            if snippets, let location = diagnostic.location,
                let excerpt = sources?.excerpt(
                    line: location.line, column: location.column, in: diagnostic.file,
                    radius: DiagnosticSnippet.width * 4)
            {
                lines.append(
                    DiagnosticSnippet.render(
                        line: excerpt.bytes, number: location.line, column: excerpt.column,
                        colored: colored, cutBefore: excerpt.cutBefore, cutAfter: excerpt.cutAfter))
            }
        }
        if diagnostics.count > Self.printedLimit {
            lines.append("… and \(diagnostics.count - Self.printedLimit) more")
        }
        return secrets.mask(lines.joined(separator: "\n"))
    }
}

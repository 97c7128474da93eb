/// All the problems found in one workflow file, in file order.
public struct WorkflowErrors: Error, Sendable, CustomStringConvertible {
    /// How many diagnostics are printed; the rest are counted ("… and 99,900 more").
    public static let printedLimit = 100

    /// Every problem, in file order.
    public var diagnostics: [Diagnostic]

    /// The first ``printedLimit`` diagnostics, one per line.
    public var description: String {
        rendered(colored: false)
    }

    /// What a command prints: the first ``printedLimit`` diagnostics, a line counting the rest
    /// if there are more, and a last line counting them all, naming `file`.
    public func report(file: String, colored: Bool) -> String {
        let count = diagnostics.count
        return rendered(colored: colored) + "\n"
            + "\(file.escapingControlCharacters): \(plural(count, "error"))\n"
    }

    private func rendered(colored: Bool) -> String {
        var lines = diagnostics.prefix(Self.printedLimit).map { $0.rendered(colored: colored) }
        if diagnostics.count > Self.printedLimit {
            lines.append("… and \(diagnostics.count - Self.printedLimit) more")
        }
        return lines.joined(separator: "\n")
    }
}

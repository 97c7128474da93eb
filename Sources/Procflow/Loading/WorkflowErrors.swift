/// All the problems found in one workflow file, in file order.
public struct WorkflowErrors: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]

    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}

/// Why a valid workflow cannot be exported to Argo: one diagnostic per feature Argo cannot
/// express, each naming the step and the reason, located in the file as `validate` locates
/// problems.
public struct ArgoExportError: Error, Sendable {
    /// Every problem, in file order.
    public var diagnostics: [Diagnostic]

    /// What a command prints: every problem, then a line counting them.
    public func report(file: String, colored: Bool) -> String {
        WorkflowErrors(diagnostics: diagnostics).report(file: file, colored: colored)
    }
}

/// An engine `procflow export --to NAME` writes workflows for. Each lives in a folder of its
/// own under `Export/` and is listed once, in ``ExportTargets/all``.
public protocol ExportTarget: Sendable {
    /// The name `--to` takes.
    var name: String { get }
    /// What `--to NAME` prints, for the help: "an Argo Workflows manifest".
    var summary: String { get }
    /// `workflow` (loaded and valid; `source` is its file's bytes, to locate problems) as the
    /// engine's document.
    func export(_ workflow: Workflow, settings: ExportSettings, source: [UInt8]?)
        -> Result<ExportedDocument, ExportFailure>
}

/// What `procflow export` is told besides the workflow and the target. A target uses what
/// applies to it.
public struct ExportSettings: Sendable {
    /// The image of shell steps that name none (`--image`).
    public var image: String?
    /// The image, with procflow and a POSIX shell in it, of the steps and helpers that run
    /// procflow (`--procflow-image`).
    public var procflowImage: String
    /// Whether to write YAML rather than JSON (`--yaml`).
    public var yaml: Bool
    /// The environment procflow runs in: `env` conditions are decided in it.
    public var environment: [String: String]

    /// Settings as the command line gives them.
    public init(image: String?, procflowImage: String, yaml: Bool, environment: [String: String]) {
        self.image = image
        self.procflowImage = procflowImage
        self.yaml = yaml
        self.environment = environment
    }
}

/// A workflow in an engine's terms, and what it only approximates.
public struct ExportedDocument: Sendable {
    /// The document, as printed.
    public var text: String
    /// What the document does not express exactly, in sentences naming the step: printed as
    /// warnings.
    public var warnings: [String]
}

/// Why a valid workflow cannot be exported to a target: one diagnostic per feature the engine
/// cannot express, each naming the step and the reason, located as `validate` locates problems.
public struct ExportFailure: Error, Sendable {
    /// Every problem, in file order.
    public var diagnostics: [Diagnostic]
    /// The files they are located in, for the report to show their lines.
    var sources: SourceMap?

    /// What a command prints: every problem with its line, then a line counting them.
    public func report(file: String, colored: Bool) -> String {
        WorkflowErrors(diagnostics: diagnostics, sources: sources).report(
            file: file, colored: colored)
    }
}

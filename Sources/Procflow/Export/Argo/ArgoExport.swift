/// A workflow as an Argo `Workflow` manifest, and what the export approximated.
public struct ArgoExport: Sendable {
    /// The manifest.
    public var manifest: Manifest
    /// What the manifest does not express exactly, in sentences naming the step: printed as
    /// warnings.
    public var warnings: [String]
}

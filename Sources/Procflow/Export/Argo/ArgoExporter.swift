/// `procflow export --to argo`: a workflow as an Argo Workflows `Workflow` manifest that runs
/// the same steps, in the same order, with the same data and the same outcomes.
///
/// The mapping, in short (workflows/README.md has the whole table): each list of steps is a
/// DAG template — the workflow's, a group's, a branch case's — whose tasks carry `depends`
/// expressions that let a step run on exactly the outcomes procflow lets it run on; shell steps
/// are container templates in `--image` or their `image`; HTTP steps are `http` templates; file
/// steps are pods running procflow on a one-step workflow; values pass between tasks as
/// base64-encoded parameters that only pods decode, never as text spliced into a command or
/// expression; and what needs procflow's own semantics (selecting with a JSON Pointer, typed
/// comparisons, conditions on files and commands, choosing a branch's case, checking that a
/// JSON output parses) runs in small procflow pods next to the step.
public enum ArgoExporter {
    /// Exports `workflow`.
    ///
    /// - Parameters:
    ///   - workflow: a loaded, valid workflow.
    ///   - options: images and the environment `env` conditions are decided in.
    ///   - source: the workflow file's bytes, to locate problems; `nil` leaves them unlocated.
    /// - Returns: the manifest, and warnings for what it only approximates.
    /// - Throws: an ``ArgoExportError`` naming each step that uses what Argo cannot express.
    public static func export(
        _ workflow: Workflow, options: ArgoExportOptions, source: [UInt8]? = nil
    ) throws(ArgoExportError) -> ArgoExport {
        let builder = ArgoManifestBuilder(
            workflow: workflow, options: options, source: source.map(SourceText.init))
        return try builder.build()
    }
}

/// `procflow export --to argo`: an Argo Workflows manifest (``ArgoExporter``).
struct ArgoTarget: ExportTarget {
    let name = "argo"
    let summary = "an Argo Workflows manifest"

    func export(_ workflow: Workflow, settings: ExportSettings, source: [UInt8]?)
        -> Result<ExportedDocument, ExportFailure>
    {
        let options = ArgoExportOptions(
            image: settings.image, procflowImage: settings.procflowImage,
            environment: settings.environment)
        do {
            let export = try ArgoExporter.export(workflow, options: options, source: source)
            let text = settings.yaml ? export.manifest.yaml : export.manifest.json
            return .success(ExportedDocument(text: text, warnings: export.warnings))
        } catch {
            return .failure(error)
        }
    }
}

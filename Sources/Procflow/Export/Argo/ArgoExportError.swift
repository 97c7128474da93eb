/// Why a valid workflow cannot be exported to Argo: the diagnostics of an ``ExportFailure``.
public typealias ArgoExportError = ExportFailure

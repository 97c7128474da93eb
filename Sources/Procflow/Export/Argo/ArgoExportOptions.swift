/// What `procflow export --to argo` is told besides the workflow.
public struct ArgoExportOptions: Sendable {
    /// The image of shell steps that name none (`--image`).
    public var image: String?
    /// The image, with procflow and a POSIX shell in it, of the pods that run procflow: file
    /// steps that name no image, and the pods that prepare a step's inputs and condition or
    /// check its output (`--procflow-image`).
    public var procflowImage: String
    /// The environment `env` conditions are decided in, with the workflow's variables and
    /// `env` over it, as `procflow run` would decide them here.
    public var environment: [String: String]

    /// Options: shell steps in `image` unless they name one, procflow's pods in
    /// `procflowImage`, `env` conditions decided in `environment`.
    public init(image: String?, procflowImage: String, environment: [String: String]) {
        self.image = image
        self.procflowImage = procflowImage
        self.environment = environment
    }
}

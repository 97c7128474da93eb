/// `procflow export FILE --to ENGINE`: prints the workflow as a document another engine runs.
struct ExportCommand: ParsableCommand {
    enum Option: String, CommandOption {
        case to
        case image
        case procflowImage = "procflow-image"
        case variable = "var"
        case yaml
        case file

        var spec: OptionSpec {
            switch self {
            case .file:
                return WorkflowArguments.fileOption
            case .to:
                return .value(
                    rawValue, "engine",
                    help:
                        "The engine to export to (required): "
                        + ExportTargets.all.map { "\($0.name), \($0.summary)" }.joined(
                            separator: "; ") + ".",
                    choices: ExportTargets.all.map(\.name))
            case .image:
                return .value(
                    rawValue, "image",
                    help: "The container image of shell steps that name none in \"image\".")
            case .procflowImage:
                return .value(
                    rawValue, "image",
                    help:
                        "The image, with procflow and /bin/sh in it, of file steps and of the pods that prepare inputs and conditions; \(ExportCommand.defaultProcflowImage) by default."
                )
            case .variable:
                return WorkflowArguments.variableOption
            case .yaml:
                return .flag(rawValue, help: "Print YAML instead of JSON.")
            }
        }
    }

    /// The procflow image named when `--procflow-image` is not given.
    static let defaultProcflowImage = "procflow:\(CommandLineTool.version)"

    static let name = "export"
    static let abstract = "Print a workflow as an Argo Workflows manifest."
    static let discussion: String? = """
        Prints an Argo Workflow (argoproj.io/v1alpha1) that runs the same steps with the same
        data and outcomes: JSON by default (argo submit and kubectl read it), YAML with --yaml.
        Exit status 2 for an invalid workflow (the errors validate prints), or for one that
        uses what Argo cannot express: each such step is named, with the reason. What the
        manifest only approximates is printed as warnings on standard error.
        """
    static let arguments = [WorkflowArguments.fileArgument]

    let workflow: WorkflowArguments
    let target: any ExportTarget
    let settings: ExportSettings

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        let (file, _) = try WorkflowArguments.file(
            positionals: arguments.positionals, option: arguments.value(.file), takesTargets: false)
        workflow = try WorkflowArguments(file: file, variables: arguments.values(.variable))
        // The parser has checked the name against the targets' names.
        guard let name = arguments.value(.to), let target = ExportTargets.named(name) else {
            throw ArgumentError(
                message:
                    "Missing '--to <engine>': the engine to export to (\(ExportTargets.all.map(\.name).joined(separator: ", ")))"
            )
        }
        self.target = target
        settings = ExportSettings(
            image: arguments.value(.image),
            procflowImage: arguments.value(.procflowImage) ?? Self.defaultProcflowImage,
            yaml: arguments.isSet(.yaml), environment: [:])
    }

    func run(console: Console) -> Int32 {
        guard let (loaded, source) = workflow.loadWithBytes(console: console) else {
            return CommandLineTool.ExitStatus.usage
        }
        var settings = settings
        settings.environment = console.environment
        switch target.export(loaded, settings: settings, source: source) {
        case .success(let document):
            var warnings = document.warnings
            let secrets = SecretValues(loaded.secretValues(in: console.environment))
            if !secrets.isEmpty, secrets.mask(document.text) != document.text {
                warnings.append(
                    "the manifest holds the values of the workflow's secrets in clear: keep it private (Argo passes them to the pods as written)"
                )
            }
            for warning in warnings {
                console.writeError("warning: \(warning.escapingControlCharacters)\n")
            }
            console.write(document.text)
            return CommandLineTool.ExitStatus.success
        case .failure(let failure):
            console.writeError(failure.report(file: workflow.file, colored: console.colorsErrors))
            return CommandLineTool.ExitStatus.usage
        }
    }
}

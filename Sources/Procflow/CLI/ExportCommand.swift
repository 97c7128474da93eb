/// `procflow export FILE --to argo`: prints the workflow as a manifest another engine runs.
struct ExportCommand: ParsableCommand {
    enum Option: String, CommandOption {
        case to
        case image
        case procflowImage = "procflow-image"
        case variable = "var"
        case yaml

        var spec: OptionSpec {
            switch self {
            case .to:
                return .value(
                    rawValue, "engine", help: "The engine to export to (required).",
                    choices: ["argo"])
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
    let options: ArgoExportOptions
    let yaml: Bool

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        workflow = try WorkflowArguments(
            file: arguments.positionals[0], variables: arguments.values(.variable))
        guard arguments.value(.to) != nil else {
            throw ArgumentError(message: "Missing '--to <engine>': the engine to export to (argo)")
        }
        options = ArgoExportOptions(
            image: arguments.value(.image),
            procflowImage: arguments.value(.procflowImage) ?? Self.defaultProcflowImage,
            environment: [:])
        yaml = arguments.isSet(.yaml)
    }

    func run(console: Console) -> Int32 {
        guard let (loaded, source) = workflow.loadWithBytes(console: console) else {
            return CommandLineTool.ExitStatus.usage
        }
        var options = options
        options.environment = console.environment
        do {
            let export = try ArgoExporter.export(loaded, options: options, source: source)
            for warning in export.warnings {
                console.writeError("warning: \(warning.escapingControlCharacters)\n")
            }
            console.write(yaml ? export.manifest.yaml : export.manifest.json)
            return CommandLineTool.ExitStatus.success
        } catch {
            console.writeError(error.report(file: workflow.file, colored: console.colorsErrors))
            return CommandLineTool.ExitStatus.usage
        }
    }
}

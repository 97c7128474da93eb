/// `procflow argo-pod loop|gather …`: the two pieces of a `forEach` that the pods of an
/// exported Argo workflow run, with the code the exporter uses for items the file gives:
/// `loop` makes the loop entries of a list another step gave, `gather` makes the step's
/// output from what its instances gave. Not listed in `procflow help`: the exporter writes
/// these command lines, people do not.
struct ArgoPodCommand: ParsableCommand {
    typealias Option = NoOption

    enum Action: String, CaseIterable {
        case loop
        case gather
    }

    static let name = "argo-pod"
    static let abstract = "What the pods of an exported Argo workflow run for a forEach."
    static let discussion: String? = """
        loop SPEC LIST OUT writes OUT/loop, the Argo loop entries of the JSON array in the
        file LIST for the forEach SPEC describes, and OUT/count. gather SPEC RESULTS OUT COUNT
        writes to OUT the JSON array of the COUNT instances' outputs, from Argo's aggregate of
        their output parameters in the file RESULTS (COUNT is a file holding the number).
        procflow export --to argo writes these command lines into the manifest.
        """
    static let arguments = [
        CommandDescription.Argument(name: "action", help: "loop or gather."),
        CommandDescription.Argument(
            name: "spec", help: "What the exporter says of the step, as JSON."),
        CommandDescription.Argument(
            name: "input", help: "The list (loop) or the aggregate (gather)."),
        CommandDescription.Argument(name: "output", help: "Where to write."),
        CommandDescription.Argument(
            name: "count", help: "The file holding the number of instances (gather).",
            isOptional: true),
    ]

    let action: Action
    let spec: String
    let input: String
    let output: String
    let count: String?

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        let words = arguments.positionals
        guard let action = Action(rawValue: words[0]) else {
            throw ArgumentError(message: "Unknown action '\(words[0])': expected loop or gather")
        }
        if action == .gather, words.count < 5 {
            throw ArgumentError(message: "Missing expected argument '<count>'")
        }
        self.action = action
        spec = words[1]
        input = words[2]
        output = words[3]
        count = words.count > 4 ? words[4] : nil
    }

    func run(console: Console) -> Int32 {
        do {
            switch action {
            case .loop: try ArgoPod.loop(spec: spec, list: input, output: output)
            case .gather:
                try ArgoPod.gather(spec: spec, results: input, output: output, count: count ?? "")
            }
            return CommandLineTool.ExitStatus.success
        } catch {
            console.writeError("procflow: \(error.description)\n")
            return CommandLineTool.ExitStatus.failure
        }
    }
}

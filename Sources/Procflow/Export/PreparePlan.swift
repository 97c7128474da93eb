/// What the pod that prepares a step does: the values it reads, the procflow workflow it runs
/// on them, and the parameters it gives the step's task.
///
/// It works out, with procflow itself, what needs procflow's semantics before the step can
/// run: a wired value as the command will see it (a part of JSON chosen by a JSON Pointer; a
/// JSON string as the string, other JSON as JSON text), the `Content-Type` a request's wired
/// body gets, whether a `when` holds (files, commands and typed comparisons of outputs), which
/// case a branch takes, and whether a group's input has what its `select` points at.
struct PreparePlan {
    /// A parameter the pod gives.
    struct Output {
        /// The parameter's name.
        var name: String
        /// The file it is read from, in `out/` (as is) or `argo/` (base64-encoded).
        var file: String
        var encoded: Bool
        /// What it is when the pod does not write the file.
        var fallback: String

        /// The output parameter.
        var manifest: Manifest {
            let directory = encoded ? "argo" : "out"
            return .members([
                "name": .string(name),
                "valueFrom": .members([
                    "path": .string("\(PodScript.work)/\(directory)/\(file)"),
                    "default": .string(fallback),
                ]),
            ])
        }
    }

    /// The values the pod reads, each once: `value-0`, `value-1`, … .
    private(set) var values: [ArgoValue] = []
    /// The workflow it runs, without the steps that read the values (see ``workflow``).
    var pod: PodWorkflow
    /// The parameters it gives.
    var outputs: [Output] = []
    /// Whether its `run` parameter says if the step's condition holds.
    var decidesCondition = false
    /// Whether it needs the workspace: a condition reads a file or runs a command.
    var mountsWorkspace = false
    /// The ids of the steps that work out values, which the condition waits for.
    var projections: [String] = []

    init(pod: PodWorkflow) {
        self.pod = pod
    }

    /// The id of the step that reads the value `value` is part of.
    mutating func read(_ value: ArgoValue) -> String {
        let whole = ArgoValue(source: value.source, format: value.format, select: nil)
        if let index = values.firstIndex(where: {
            $0.source == whole.source && $0.format == whole.format
        }) {
            return "value-\(index)"
        }
        values.append(whole)
        return "value-\(values.count - 1)"
    }

    /// `{"from": …, "select": …}` for `value`, from the step that reads it.
    mutating func wire(_ value: ArgoValue) -> Manifest {
        PodWorkflow.wire(from: read(value), select: value.select)
    }

    /// Adds a step that writes `value` as a command sees it, for the parameter `name`.
    mutating func project(_ value: ArgoValue, as name: String) {
        pod.procedures.append(PodWorkflow.write(name, file: name, wire: wire(value)))
        projections.append(name)
        outputs.append(Output(name: name, file: name, encoded: true, fallback: ""))
    }

    /// The arguments of the pod's task: each value it reads.
    var arguments: [Manifest] {
        values.enumerated().map { index, value in
            .members(["name": .string("value-\(index)"), "value": .string(value.argument)])
        }
    }

    /// The whole workflow: the steps that read the values, then the rest.
    var workflow: PodWorkflow {
        var whole = pod
        whole.procedures =
            values.enumerated().map { index, value in
                PodWorkflow.read("value-\(index)", file: "value-\(index)", format: value.format)
            } + pod.procedures
        return whole
    }
}

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
    /// For each value that may not have been given (a group's output, read by a condition):
    /// the tag that says whether it was.
    private(set) var given: [Int: String] = [:]
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

    /// The id of the step that reads the value `value` is part of; `given`, if the value may
    /// be missing, is the tag that says whether it is there.
    mutating func read(_ value: ArgoValue, given: String? = nil) -> String {
        let whole = ArgoValue(source: value.source, format: value.format, select: nil)
        let index =
            values.firstIndex { $0.source == whole.source && $0.format == whole.format }
            ?? {
                values.append(whole)
                return values.count - 1
            }()
        if let given { self.given[index] = given }
        return "value-\(index)"
    }

    /// `{"from": …, "select": …}` for `value`, from the step that reads it.
    mutating func wire(_ value: ArgoValue, given: String? = nil) -> Manifest {
        PodWorkflow.wire(from: read(value, given: given), select: value.select)
    }

    /// Adds a step that writes `value` as a command sees it, for the parameter `name`.
    mutating func project(_ value: ArgoValue, as name: String) {
        pod.procedures.append(PodWorkflow.write(name, file: name, wire: wire(value)))
        projections.append(name)
        outputs.append(Output(name: name, file: name, encoded: true, fallback: ""))
    }

    /// The pod's inputs: each value it reads, and whether those that may be missing are
    /// there, with the files they go to (`.plain` files are not encoded).
    var inputs: [(name: String, file: String, argument: String)] {
        values.indices.flatMap { index in
            [("value-\(index)", "value-\(index)", values[index].argument)]
                + (given[index].map { [("given-\(index)", "given-\(index).plain", $0)] } ?? [])
        }
    }

    /// The arguments of the pod's task.
    var arguments: [Manifest] {
        inputs.map { .members(["name": .string($0.name), "value": .string($0.argument)]) }
    }

    /// The whole workflow: the steps that read the values, then the rest. A value that may be
    /// missing is read by a group whose output is the value only when it was given, so that
    /// conditions read it as procflow reads a group that gave no output.
    var workflow: PodWorkflow {
        var whole = pod
        var reads: [Manifest] = []
        for (index, value) in values.enumerated() {
            let id = "value-\(index)"
            guard given[index] != nil else {
                reads.append(PodWorkflow.read(id, file: id, format: value.format))
                continue
            }
            let read = PodWorkflow.read(id + "-read", file: id, format: value.format).adding(
                "when",
                .members(["output": ["from": .string("given-\(index)")], "equals": true]))
            reads += [
                PodWorkflow.read("given-\(index)", file: "given-\(index).plain", format: .json),
                .members([
                    "id": .string(id), "kind": "group", "outputFrom": .string(id + "-read"),
                    "procedures": [read],
                ]),
            ]
        }
        whole.procedures = reads + pod.procedures
        return whole
    }
}

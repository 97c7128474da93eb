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
    /// A test, on an input of the pod, that a value it reads may not be there: a status that
    /// must be `Succeeded`, or a group's `given` that must be `true`.
    struct Check {
        /// The tag of the input: a status, or a `given`.
        var argument: String
        /// How to read it: as text, or as JSON.
        var format: OutputFormat
        /// What it must be for the value to be there.
        var equals: JSONValue
    }

    /// For each value that may not be there, what says whether it is.
    private(set) var checks: [Int: [Check]] = [:]
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

    /// The id of the step that reads the value `value` is part of; `checks`, if the value may
    /// be missing, say whether it is there.
    mutating func read(_ value: ArgoValue, checks: [Check] = []) -> String {
        let whole = ArgoValue(source: value.source, format: value.format, select: nil)
        let index =
            values.firstIndex { $0.source == whole.source && $0.format == whole.format }
            ?? {
                values.append(whole)
                return values.count - 1
            }()
        if !checks.isEmpty { self.checks[index] = checks }
        return "value-\(index)"
    }

    /// `{"from": …, "select": …}` for `value`, from the step that reads it.
    mutating func wire(_ value: ArgoValue, checks: [Check] = []) -> Manifest {
        PodWorkflow.wire(from: read(value, checks: checks), select: value.select)
    }

    /// Adds a step that writes `value` as a command sees it, for the parameter `name`; with
    /// `checks`, only when they say the value is there.
    mutating func project(_ value: ArgoValue, as name: String, checks: [Check] = []) {
        pod.procedures.append(
            PodWorkflow.write(name, file: name, wire: wire(value, checks: checks)))
        projections.append(name)
        outputs.append(Output(name: name, file: name, encoded: true, fallback: ""))
    }

    /// The pod's inputs: each value it reads, and what says whether those that may be missing
    /// are there, with the files they go to (`.plain` files are not encoded).
    var inputs: [(name: String, file: String, argument: String)] {
        values.indices.flatMap { index in
            [("value-\(index)", "value-\(index)", values[index].argument)]
                + (checks[index] ?? []).enumerated().map { number, check in
                    ("check-\(index)-\(number)", "check-\(index)-\(number).plain", check.argument)
                }
        }
    }

    /// The arguments of the pod's task.
    var arguments: [Manifest] {
        inputs.map { .members(["name": .string($0.name), "value": .string($0.argument)]) }
    }

    /// The whole workflow: the steps that read the values, then the rest. A value that may be
    /// missing is read by a group whose output is the value only when its checks hold, so
    /// that conditions read a missing one as procflow reads a missing output: as no value.
    var workflow: PodWorkflow {
        var whole = pod
        var reads: [Manifest] = []
        for (index, value) in values.enumerated() {
            let id = "value-\(index)"
            guard let checks = checks[index] else {
                reads.append(PodWorkflow.read(id, file: id, format: value.format))
                continue
            }
            var tests: [Manifest] = []
            for (number, check) in checks.enumerated() {
                let name = "check-\(index)-\(number)"
                reads.append(PodWorkflow.read(name, file: name + ".plain", format: check.format))
                tests.append(
                    .members(["output": ["from": .string(name)], "equals": Manifest(check.equals)]))
            }
            let read = PodWorkflow.read(id + "-read", file: id, format: value.format).adding(
                "when", tests.count == 1 ? tests[0] : ["all": .array(tests)])
            reads.append(
                .members([
                    "id": .string(id), "kind": "group", "outputFrom": .string(id + "-read"),
                    "procedures": [read],
                ]))
        }
        whole.procedures = reads + pod.procedures
        return whole
    }
}

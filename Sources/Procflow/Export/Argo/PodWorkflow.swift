/// A procflow workflow the exporter writes for one pod to run with `procflow run`: the step it
/// runs (a file step), or the work of preparing a step's inputs and condition, or of checking
/// its output — each with the data it reads as files the pod was given.
///
/// Paths in it are absolute, because the file itself is not in the workspace; variables are
/// already filled in, so every `${` in a field procflow fills is written `$${`.
struct PodWorkflow {
    /// Where a value the pod was given is, decoded.
    static func input(_ name: String) -> String { "\(PodScript.work)/in/\(name)" }
    /// Where the pod leaves a value for Argo.
    static func output(_ name: String) -> String { "\(PodScript.work)/out/\(name)" }

    var name: String
    var variables: [(name: String, value: String)]
    var environment: [(name: String, value: String)]
    var procedures: [Manifest] = []

    /// The workflow file.
    var manifest: Manifest {
        .members([
            "name": .string(name),
            "vars": .object(variables.map { .init($0.name, .string($0.value)) }),
            "env": .object(environment.map { .init($0.name, .string(Self.literal($0.value))) }),
            "procedures": .array(procedures),
        ])
    }

    /// `text` as a field procflow fills variables in writes it: `${` as `$${`.
    static func literal(_ text: String) -> String {
        text.replacingOccurrences(of: "${", with: "$${")
    }

    /// A path in the workspace, made absolute and written as a literal.
    static func path(_ path: String) -> Manifest {
        .string(literal(resolve(path, in: PodScript.workspace)))
    }

    /// `{"from": id, "select": pointer}`.
    static func wire(from id: String, select: JSONPointer?) -> Manifest {
        .members([
            "from": .string(id),
            "select": select.flatMap { $0.isRoot ? nil : .string($0.description) },
        ])
    }

    /// A step that reads a value the pod was given, as text or JSON (parsing it).
    static func read(_ id: String, file: String, format: OutputFormat) -> Manifest {
        .members([
            "id": .string(id), "kind": "file", "op": "read", "path": .string(input(file)),
            "output": .string(format == .json ? "json" : "text"),
        ])
    }

    /// A step that writes what `wire` takes, as a command sees it, for Argo to read.
    static func write(_ id: String, file: String, wire: Manifest) -> Manifest {
        .members([
            "id": .string(id), "kind": "file", "op": "write", "path": .string(output(file)),
            "input": wire,
        ])
    }

    /// A step that writes `content` for Argo to read, if `when` holds.
    static func write(
        _ id: String, file: String, content: String, when: Manifest?, after: [String],
        timeout: Double? = nil
    ) -> Manifest {
        .members([
            "id": .string(id), "kind": "file", "op": "write", "path": .string(output(file)),
            "content": .string(content), "dependsOn": Manifest.nonEmpty(after.map(Manifest.string)),
            "when": when, "timeout": timeout.map(Manifest.number),
        ])
    }
}

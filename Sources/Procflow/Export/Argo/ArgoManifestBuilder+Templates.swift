import Foundation

extension ArgoManifestBuilder {
    /// Writes the template of `step`'s main task (and, for a group or branch, everything
    /// inside it).
    func writeTemplate(for step: Step, at level: [String]) {
        switch step.kind {
        case .shell(let shell): templates.append(shellTemplate(step, shell))
        case .http(let http): templates.append(httpTemplate(step, http))
        case .file(let operation): templates.append(fileTemplate(step, operation))
        case .group(let group): writeGroup(step, group, at: level)
        case .branch(let branch): writeBranch(step, branch, at: level)
        }
    }

    /// What every step template has: its step's id, retry, mutexes.
    private func common(_ step: Step, retries: Bool = true) -> [Manifest.Member] {
        var members: [Manifest.Member] = []
        if retries, let retry = step.retry, retry.attempts > 1 {
            var backoff: [Manifest.Member] = [.init("duration", .string(duration(retry.delay)))]
            switch retry.backoff {
            case .constant, .linear:
                backoff.append(.init("factor", "1"))
            case .exponential:
                backoff.append(.init("factor", "2"))
                backoff.append(.init("cap", .string(duration(retry.maxDelay ?? 300))))
            }
            members.append(
                .init(
                    "retryStrategy",
                    .members([
                        "limit": .string(String(retry.attempts - 1)), "retryPolicy": "Always",
                        "backoff": .object(backoff),
                    ])))
        }
        if !step.mutex.isEmpty {
            members.append(
                .init(
                    "synchronization",
                    [
                        "mutexes": .array(step.mutex.map { .members(["name": .string($0)]) })
                    ]))
        }
        return members
    }

    /// "1.5s", as Argo writes durations.
    private func duration(_ seconds: Double) -> String {
        JSONWriter.format(seconds) + "s"
    }

    private func annotations(_ step: Step) -> Manifest {
        ["annotations": .object([.init(Self.stepAnnotation, .string(step.id))])]
    }

    private func withMembers(_ template: Manifest, _ members: [Manifest.Member]) -> Manifest {
        members.reduce(template) { $0.adding($1.key, $1.value) }
    }

    // MARK: - Shell

    /// A container running the command in the step's image, in the workspace, with the
    /// workflow's variables and `env` and the step's `env` as its environment. Wired values
    /// arrive as files the wrapper decodes into environment variables and stdin; values Argo
    /// must not read (`{{`) arrive the same way.
    private func shellTemplate(_ step: Step, _ shell: Shell) -> Manifest {
        usesWorkspace = true
        var (needs, words, parameters, artifacts, environment) = shellPodInputs(step, shell)
        needs.output = shell.output != .none
        needs.given = givesGroupOutput(step) && !needsFinisher(step)
        let command =
            needs.isNone
            ? words
            : ["/bin/sh", "-c", PodScript.wrapper(needs), "procflow"]
                + (needs.arguments ? [] : words)
        var outputs: [Manifest] = []
        if needs.output {
            outputs.append(
                .members([
                    "name": "output",
                    "valueFrom": .members([
                        "path": .string(PodScript.work + "/argo/output"), "default": "",
                    ]),
                ]))
        }
        if needs.given { outputs.append(Self.givenOutput) }
        if needs.index {
            // Which instance gave the output, in Argo's aggregate of a loop's outputs.
            outputs.append(
                .members([
                    "name": "index",
                    "valueFrom": .members(["path": .string(PodScript.work + "/index")]),
                ]))
        }
        var members = common(step)
        if let timeout = step.timeout {
            // An IntOrString, which Argo's schema writes as a string.
            members.append(
                .init("activeDeadlineSeconds", .string(String(Int(timeout.rounded(.up))))))
        }
        return withMembers(
            .members([
                "name": .string(names[step.id]),
                "metadata": annotations(step),
                "inputs": inputs(parameters: parameters, artifacts: artifacts),
                "outputs": Manifest.nonEmpty(outputs).map { ["parameters": $0] },
                "container": .members([
                    "image": .string(step.image ?? options.image ?? ""),
                    "command": .strings(command),
                    "workingDir": .string(resolve(shell.cwd ?? ".", in: PodScript.workspace)),
                    "env": Manifest.nonEmpty(environment),
                    "volumeMounts": [Self.workspaceMount],
                ]),
            ]), members)
    }

    /// What a shell step's pod is given: the wrapper's needs, the command's words, the
    /// template's parameters and
    /// raw artifacts (wired values, values Argo must not read, a command's words that hold
    /// `{{`), and the plain environment.
    private func shellPodInputs(_ step: Step, _ shell: Shell) -> (
        needs: PodScript.Needs, words: [String], parameters: [String], artifacts: [Manifest],
        environment: [Manifest]
    ) {
        var needs = PodScript.Needs()
        var parameters: [String] = []
        var artifacts: [Manifest] = []
        let inputNames = Set(shell.inputs.map(\.name))
        var environment: [Manifest] = []
        // A forEach's instances each give their own values of what takes the item.
        let loop = loop(of: step)
        let looped = Set(loop?.fields.map(\.name) ?? [])
        func parameterArtifact(_ name: String, path: String) {
            parameters.append(name)
            artifacts.append(
                rawArtifact(name, path: path, data: "{{inputs.parameters.\(name)}}"))
        }
        if loop != nil {
            needs.index = true
            parameterArtifact("index", path: PodScript.inputs + "/index")
        }
        if step.forEach?.listWire != nil {
            needs.failure = true
            parameterArtifact("fail", path: PodScript.inputs + "/fail")
        }
        for (name, value) in commandEnvironment(step, shell) where !inputNames.contains(name) {
            if looped.contains("env-" + name) {
                needs.environment = true
                parameterArtifact("env-" + name, path: "\(PodScript.inputs)/env/\(name)")
            } else if value.contains("{{"), name != "PROCFLOW_RUN_ID" {
                needs.environment = true
                artifacts.append(
                    rawArtifact(
                        "env-" + name, path: "\(PodScript.inputs)/env/\(name)", data: base64(value))
                )
            } else {
                environment.append(.members(["name": .string(name), "value": .string(value)]))
            }
        }
        for (name, _) in shell.inputs {
            needs.environment = true
            parameters.append("env-" + name)
            artifacts.append(
                rawArtifact(
                    "env-" + name, path: "\(PodScript.inputs)/env/\(name)",
                    data: "{{inputs.parameters.env-\(name)}}"))
        }
        if inputValue(of: step) != nil {
            needs.stdin = true
            parameters.append("stdin")
            artifacts.append(
                rawArtifact(
                    "stdin", path: PodScript.inputs + "/stdin", data: "{{inputs.parameters.stdin}}")
            )
        }
        let words: [String]
        switch shell.command {
        case .script(let script):
            // The image's /bin/sh is unknown: -e, but pipefail only where the step asks for bash.
            words = shell.interpreter.arguments(running: script, shHasPipefail: false)
        case .argv(let argv): words = argv
        }
        if looped.contains("argv-0") {
            needs.arguments = true
            for index in words.indices {
                parameterArtifact("argv-\(index)", path: "\(PodScript.inputs)/argv/\(index)")
            }
        } else if words.contains(where: { $0.contains("{{") }) {
            needs.arguments = true
            for (index, word) in words.enumerated() {
                artifacts.append(
                    rawArtifact(
                        "argv-\(index)", path: "\(PodScript.inputs)/argv/\(index)",
                        data: base64(word)))
            }
        }
        return (needs, words, parameters, artifacts, environment)
    }

    /// A command's environment as procflow gives it, in order, each name once with its last
    /// value: the variables, the workflow's `env`, the step's `env`, then `PROCFLOW_STEP` and
    /// `PROCFLOW_RUN_ID` (the Argo workflow's name). Wired inputs come on top, in the pod. A
    /// `forEach`'s item comes after the step's `env`, its value each instance's (see
    /// ``loop(of:)``), as does `PROCFLOW_STEP`.
    func commandEnvironment(_ step: Step, _ shell: Shell) -> [(String, String)] {
        var order: [String] = []
        var values: [String: String] = [:]
        let item = step.forEach.map { [($0.variable, "")] } ?? []
        let all =
            workflow.variables + workflow.environment + shell.environment + item
            + [("PROCFLOW_STEP", step.id), ("PROCFLOW_RUN_ID", Self.runID)]
        for (name, value) in all {
            if values.updateValue(value, forKey: name) == nil { order.append(name) }
        }
        return order.map { ($0, values[$0]!) }
    }

    /// The run's id in pods: the Argo workflow's name, unique among runs.
    static let runID = "{{workflow.name}}"

    private func base64(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
    }

    private func inputs(parameters: [String], artifacts: [Manifest]) -> Manifest? {
        guard !parameters.isEmpty || !artifacts.isEmpty else { return nil }
        return .members([
            "parameters": Manifest.nonEmpty(parameters.map { .members(["name": .string($0)]) }),
            "artifacts": Manifest.nonEmpty(artifacts),
        ])
    }

    // MARK: - HTTP

    /// An `http` template: the method, URL and headers as they are, the body base64-encoded
    /// (`bodyFrom.bytes`, so that Argo never reads it), success as `expect` says.
    private func httpTemplate(_ step: Step, _ http: HTTP) -> Manifest {
        var headers = http.headers.map {
            Manifest.members(["name": .string($0.name), "value": .string($0.value)])
        }
        let typed = http.headers.contains { $0.name.lowercased() == "content-type" }
        var parameters: [String] = []
        var bodyFrom: Manifest?
        var body: Manifest?
        var contentType: String?
        if let literal = http.body {
            let text: String
            if case .string(let string) = literal {
                text = string
                contentType = Self.textContentType
            } else {
                text = JSONWriter.string(literal)
                contentType = "application/json"
            }
            // Bytes, base64-encoded, which Argo does not read for tags.
            bodyFrom = ["bytes": .string(base64(text))]
        } else if inputValue(of: step) != nil {
            // Bytes cannot come from a parameter (the manifest must hold base64 to load), so a
            // wired body is text, which the prepare pod checked holds no {{.
            parameters += ["body", "content-type"]
            body = "{{inputs.parameters.body}}"
            contentType = "{{inputs.parameters.content-type}}"
        }
        if let contentType, !typed {
            headers.append(.members(["name": "Content-Type", "value": .string(contentType)]))
        }
        let success =
            http.expect.isEmpty
            ? nil : http.expect.map { "response.statusCode == \($0)" }.joined(separator: " || ")
        return withMembers(
            .members([
                "name": .string(names[step.id]),
                "metadata": annotations(step),
                "inputs": inputs(parameters: parameters, artifacts: []),
                "http": .members([
                    "method": .string(http.method), "url": .string(http.url),
                    "headers": Manifest.nonEmpty(headers),
                    "body": body, "bodyFrom": bodyFrom,
                    "successCondition": success.map(Manifest.string),
                    "timeoutSeconds": .integer(Int((step.timeout ?? 60).rounded(.up))),
                ]),
            ]), common(step))
    }

    // MARK: - File

    /// A pod that runs the step with procflow: a one-step workflow, its paths made absolute in
    /// the workspace, its input read from the value the pod is given, its output written for
    /// Argo. procflow applies the step's retry and timeout itself, exactly.
    private func fileTemplate(_ step: Step, _ operation: FileOperation) -> Manifest {
        func unused(_ id: String) -> String { id == step.id ? id + "-1" : id }
        let inputID = unused("procflow-input")
        let outputID = unused("procflow-output")
        var procedures: [Manifest] = []
        let input = staticInput(of: step)
        if let input {
            procedures.append(PodWorkflow.read(inputID, file: "input", format: input.format))
        }
        var fields: [Manifest.Member] = [
            .init("id", .string(step.id)), .init("kind", "file"),
            .init("op", .string(operation.name)),
        ]
        fields += fileFields(operation)
        if let input {
            fields.append(.init("input", PodWorkflow.wire(from: inputID, select: input.select)))
        }
        if let retry = step.retry { fields.append(.init("retry", Self.retry(retry))) }
        if let timeout = step.timeout { fields.append(.init("timeout", .number(timeout))) }
        procedures.append(.object(fields))
        if let writer = outputWriter(outputID, of: step, operation) { procedures.append(writer) }
        var outputs: [Manifest] = []
        if step.outputFormat != .none {
            outputs.append(
                .members([
                    "name": "output",
                    "valueFrom": .members([
                        "path": .string(PodScript.work + "/argo/output"), "default": "",
                    ]),
                ]))
        }
        if givesGroupOutput(step) { outputs.append(Self.givenOutput) }
        let pod = PodWorkflow(
            name: step.id, variables: workflow.variables, environment: [], procedures: procedures)
        return procflowPod(
            names[step.id], role: nil, step: step, workflow: pod,
            values: input == nil ? [] : [("input", "input")], outputs: outputs,
            image: step.image ?? options.procflowImage, mountsWorkspace: true,
            extra: common(step, retries: false))
    }

    /// A step's `retry` as the pod's one-step workflow writes it.
    private static func retry(_ retry: Retry) -> Manifest {
        .members([
            "attempts": .integer(retry.attempts),
            "backoff": .string(retry.backoff.rawValue),
            "delay": .number(retry.delay),
            "maxDelay": retry.maxDelay.map(Manifest.number),
            "jitter": .number(retry.jitter),
        ])
    }

    /// The procedure, named `id`, that writes a file step's output where Argo reads it; `nil`
    /// for operations without one.
    private func outputWriter(_ id: String, of step: Step, _ operation: FileOperation)
        -> Manifest?
    {
        let output = PodWorkflow.output("output")
        switch operation {
        case .read(let path, .json):
            return copy(id, from: PodWorkflow.path(path), to: output, after: step.id)
        case .select:
            return copy(
                id, from: .string(PodWorkflow.input("input")), to: output, after: step.id)
        case .read, .render, .replace, .concat:
            return PodWorkflow.write(
                id, file: "output", wire: PodWorkflow.wire(from: step.id, select: nil))
        case .write, .copy:
            return nil
        }
    }

    /// The fields of a file operation, paths absolute in the workspace and literal.
    private func fileFields(_ operation: FileOperation) -> [Manifest.Member] {
        switch operation {
        case .read(let path, let format):
            return [
                .init("path", PodWorkflow.path(path)), .init("output", .string(format.rawValue)),
            ]
        case .write(let path, let content):
            return [.init("path", PodWorkflow.path(path))]
                + (content.map { [.init("content", .string(PodWorkflow.literal($0)))] } ?? [])
        case .copy(let source, let destination):
            return [
                .init("source", PodWorkflow.path(source)),
                .init("path", PodWorkflow.path(destination)),
            ]
        case .render(let template, let path):
            let source: Manifest.Member
            switch template {
            case .file(let file): source = .init("template", PodWorkflow.path(file))
            case .text(let text): source = .init("text", .string(text))
            }
            return [source] + (path.map { [.init("path", PodWorkflow.path($0))] } ?? [])
        case .select(let pointer):
            return [.init("pointer", .string(pointer.description))]
        case .replace(let find, let replacement):
            return [.init("find", .string(find)), .init("replace", .string(replacement))]
        case .concat(let paths, let path):
            return [.init("paths", .array(paths.map(PodWorkflow.path)))]
                + (path.map { [.init("path", PodWorkflow.path($0))] } ?? [])
        }
    }

    private func copy(_ id: String, from source: Manifest, to path: String, after step: String)
        -> Manifest
    {
        .members([
            "id": .string(id), "kind": "file", "op": "copy", "source": source,
            "path": .string(path), "dependsOn": [.string(step)],
        ])
    }

    // MARK: - Groups and branches

    /// A DAG template of the group's steps, taking its input and giving its output (and
    /// whether it gave one), with its concurrency limit and mutexes.
    private func writeGroup(_ step: Step, _ group: Group, at level: [String]) {
        let inner = level + [step.id]
        var outputs: [Manifest] = []
        if let source = group.outputFrom {
            let child = self.step(source.id)
            let childTasks = tasks(of: child)
            let given: String
            if case .group = child.kind {
                given = "{{tasks.\(childTasks.main).outputs.parameters.given}}"
            } else {
                given =
                    "{{tasks.\(childTasks.finisher ?? childTasks.main).outputs.parameters.given}}"
            }
            outputs = [
                .members(["name": "output", "valueFrom": value(of: source.id, at: inner).valueFrom]
                ),
                .members([
                    "name": "given",
                    "valueFrom": .members(["parameter": .string(given), "default": "false"]),
                ]),
            ]
        }
        var extra = [Manifest.Member("metadata", annotations(step))]
        if let limit = group.maxConcurrency { extra.append(.init("parallelism", .integer(limit))) }
        extra += common(step)
        buildLevel(
            inner, steps: group.steps, template: names[step.id],
            inputs: inputValue(of: step) == nil ? [] : ["input"], outputs: outputs, extra: extra)
    }

    /// A DAG template with one task per case (each a DAG template of the case's steps),
    /// guarded by the case the prepare pod chose.
    private func writeBranch(_ step: Step, _ branch: Branch, at level: [String]) {
        let chooser = level + [step.id]
        let slot = reserveTemplate()
        var cases: [(label: String, steps: [Step])] = branch.cases.enumerated().map {
            (String($0), $1.steps)
        }
        if !branch.otherwise.isEmpty { cases.append(("otherwise", branch.otherwise)) }
        var tasks: [Manifest] = []
        for (label, steps) in cases {
            let inner = chooser + [step.id + "#" + label]
            let template =
                names[step.id] + (label == "otherwise" ? "--otherwise" : "--case-" + label)
            buildLevel(inner, steps: steps, template: template, inputs: [])
            tasks.append(
                task(
                    template, template: template,
                    when: "'{{inputs.parameters.case}}' == '\(label)'",
                    arguments: importArguments(into: inner, from: chooser).arguments))
        }
        writeDAG(
            slot, template: names[step.id], level: chooser, tasks: tasks, steps: [],
            inputs: ["case"], extra: [.init("metadata", annotations(step))] + common(step))
    }
}

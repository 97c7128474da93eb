import Foundation

/// A `forEach` shell step becomes one looped task — `withItems` over the entries of the items
/// the file gives, `withParam` over the entries its prepare pod makes of a list another step
/// gives — running the step's container template once per item, and a `--output` pod that
/// gathers what the instances gave into the step's output, the array procflow gives.
extension ArgoManifestBuilder {
    /// The loop of a `forEach` shell step: which of its command's parameters take the item.
    func loop(of step: Step) -> ArgoLoop? {
        guard let forEach = step.forEach, case .shell(let shell) = step.kind else { return nil }
        var fields: [(name: String, value: ArgoLoop.Field)] = []
        if case .argv(let words) = shell.command, words.contains(where: Self.takesItem) {
            fields += words.enumerated().map { ("argv-\($0)", .text($1)) }
        }
        let inputs = Set(shell.inputs.map(\.name))
        for (name, _) in commandEnvironment(step, shell) where !inputs.contains(name) {
            if name == "PROCFLOW_STEP" {
                fields.append(("env-" + name, .instanceID))
            } else if name == forEach.variable {
                fields.append(("env-" + name, .item))
            } else if let value = shell.environment.last(where: { $0.name == name })?.value,
                Self.takesItem(value)
            {
                fields.append(("env-" + name, .text(value)))
            }
        }
        return ArgoLoop(step: step.id, variable: forEach.variable, fields: fields)
    }

    /// Whether a text of a `forEach` step holds a reference its instances fill in (or a `$${`
    /// they turn into `${`).
    static func takesItem(_ text: String) -> Bool {
        text.contains("${")
    }

    /// Records what of a `forEach` Argo cannot express: a step other than a shell step looped,
    /// and the fields Argo reads itself, or the exporter decides once, taking the item.
    func checkForEach(_ step: Step) {
        guard case .shell(let shell) = step.kind else {
            problem(
                step,
                "a forEach around a \(step.kind.name) has no Argo form in this exporter yet, only one around a shell step: run it with procflow, or loop over a shell step",
                field: "forEach")
            return
        }
        if let cwd = shell.cwd, Self.takesItem(cwd) {
            problem(
                step,
                "its cwd takes the item, and Argo reads a container's working directory as it is: cd in the command instead",
                field: "cwd")
        }
        if let when = step.when, when.itemTexts.contains(where: Self.takesItem) {
            problem(
                step,
                "its condition takes the item, and the export decides a forEach's condition once for every instance: test the item in the command instead",
                field: "when")
        }
    }

    /// The looped task's members: the loop, its arguments, and its condition: the step's,
    /// the data its instances take being there, and the entry's `run`.
    func loopMembers(of step: Step, at level: [String], when: String?) -> (
        loop: Manifest.Member, arguments: [Manifest], when: String
    ) {
        let loop = loop(of: step)!
        var arguments = [parameter("index", "{{item.index}}")]
        if step.forEach?.listWire != nil { arguments.append(parameter("fail", "{{item.fail}}")) }
        arguments += loop.fields.map { parameter($0.name, "{{item.\($0.name)}}") }
        let member: Manifest.Member
        if let items = step.forEach?.staticItems {
            let entries = loop.entries(items)
            let size = JSONWriter.string(.array(entries)).utf8.count
            if size > Self.largeLoop {
                warn(
                    step,
                    "its \(formatCount(items.count)) items take \(size / 1024) KiB of the manifest, and Kubernetes refuses a workflow object of more than about 1 MiB: give the list from a step instead (withParam)"
                )
            }
            member = .init("withItems", .array(entries.map(Manifest.init)))
        } else {
            member = .init(
                "withParam",
                .string("{{tasks.\(tasks(of: step).prepare!).outputs.parameters.loop}}"))
        }
        var parts = when.map { ["(\($0))"] } ?? []
        for (id, dependency) in instancePrerequisites(of: step) {
            let allows = tasks(of: self.step(id)).allows(dependency)
            parts.append("(" + allows.when(tag: { statusTag(of: $0, owner: id, at: level) }) + ")")
        }
        parts.append("{{item.run}} == true")
        return (member, arguments, parts.joined(separator: " && "))
    }

    /// The arguments of the gathering pod: Argo's aggregate of the instances' outputs and the
    /// number of items.
    func gatherArguments(of step: Step) -> [Manifest] {
        let stepTasks = tasks(of: step)
        let count: String
        if let items = step.forEach?.staticItems {
            count = String(items.count)
        } else {
            count = "{{tasks.\(stepTasks.prepare!).outputs.parameters.count}}"
        }
        return [
            parameter("results", "{{tasks.\(stepTasks.main).outputs.parameters}}"),
            parameter("count", count),
        ]
    }

    /// What must hold for the gathering pod to run: the loop ended, all its instances
    /// succeeded or were skipped (or, with `continueOnError`, ended however they did).
    func gatherDepends(of step: Step) -> String {
        let main = tasks(of: step).main
        guard step.continueOnError else { return "\(main).Succeeded" }
        return "(\(main).Succeeded || \(main).Failed || \(main).Errored)"
    }

    /// Writes the pod that gathers the step's output: `procflow argo-pod gather` on Argo's
    /// aggregate, in a one-step procflow workflow.
    func writeGatherTemplate(_ name: String, for step: Step) {
        guard case .shell(let shell) = step.kind else { return }
        let spec: JSONValue = .object([
            "step": .string(step.id), "format": .string(shell.output.rawValue),
            "tolerated": .bool(step.continueOnError),
        ])
        let command: [String] = [
            "procflow", "argo-pod", "gather", JSONWriter.string(spec),
            PodWorkflow.input("results.plain"), PodWorkflow.output("output"),
            PodWorkflow.input("count.plain"),
        ]
        let pod = PodWorkflow(
            name: "\(step.id) (output)", variables: [], environment: [],
            procedures: [
                .members([
                    "id": "gather", "kind": "shell",
                    "argv": .strings(command.map(PodWorkflow.literal)),
                ])
            ])
        templates.append(
            procflowPod(
                name, role: "output", step: step, workflow: pod,
                values: [("results", "results.plain"), ("count", "count.plain")],
                outputs: [Self.encodedOutput] + (givesGroupOutput(step) ? [Self.givenOutput] : []),
                image: options.procflowImage, mountsWorkspace: false))
    }

    /// Adds to the prepare pod of a `forEach` over another step's list the making of the loop
    /// entries (`procflow argo-pod loop`) from the value as it was given, so that its type is
    /// the one procflow sees, with the wire's `select` applied.
    func addLoop(of step: Step, at level: [String], to plan: inout PreparePlan) {
        guard let wire = step.forEach?.listWire, let loop = loop(of: step) else { return }
        let value = value(of: wire, at: level)
        let id = plan.read(value)
        var spec = loop.manifest
        if case .object(var fields) = spec {
            fields["format"] = .string(value.format.rawValue)
            fields["select"] = .string(value.select?.description ?? "")
            spec = .object(fields)
        }
        let command: [String] = [
            "procflow", "argo-pod", "loop", JSONWriter.string(spec), PodWorkflow.input(id),
            PodWorkflow.output(""),
        ]
        plan.pod.procedures.append(
            .members([
                "id": "loop", "kind": "shell", "argv": .strings(command.map(PodWorkflow.literal)),
                "dependsOn": [.string(id)],
            ]))
        plan.projections.append("loop")
        plan.outputs += [
            .init(name: "loop", file: "loop", encoded: false, fallback: "[]"),
            .init(name: "count", file: "count", encoded: false, fallback: "0"),
        ]
    }

    /// The size, in bytes, of a `withItems` list worth a warning.
    static let largeLoop = 256 * 1024

    /// The `output` parameter a procflow pod leaves base64-encoded.
    static let encodedOutput: Manifest = .members([
        "name": "output",
        "valueFrom": .members(["path": .string(PodScript.work + "/argo/output"), "default": ""]),
    ])
}

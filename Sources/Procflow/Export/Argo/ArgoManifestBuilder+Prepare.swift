import Foundation

extension ArgoManifestBuilder {
    /// How the step's condition is exported.
    func conditionPlan(for step: Step) -> ConditionPlan {
        ConditionPlan(step.when, environment: conditionEnvironment)
    }

    /// Whether the step needs a pod before it to work out its inputs or its condition.
    func needsPrepare(_ step: Step) -> Bool {
        if case .decidedInPod = conditionPlan(for: step) { return true }
        if step.forEach?.listWire != nil { return true }
        let level = levels[step.id]!
        switch step.kind {
        case .shell(let shell):
            let values = shell.inputs.map { value(of: $0.wire, at: level) }
            return (values + [inputValue(of: step)].compactMap { $0 }).contains { !$0.isPlainText }
        case .http:
            return inputValue(of: step) != nil
        case .group:
            return !(step.input?.select?.isRoot ?? true)
        case .branch:
            return true
        case .file:
            return false
        }
    }

    /// What the prepare pod of `step`, a step of `level`, does.
    func preparePlan(for step: Step, at level: [String]) -> PreparePlan {
        var plan = PreparePlan(
            pod: PodWorkflow(
                name: "\(step.id) (prepare)", variables: workflow.variables,
                environment: workflow.environment))
        switch step.kind {
        case .shell(let shell):
            // A forEach runs without them, its instances skipped: each read only if there.
            for (name, wire) in shell.inputs where !value(of: wire, at: level).isPlainText {
                plan.project(
                    value(of: wire, at: level), as: "env-" + name,
                    checks: instanceChecks(of: wire.from.id, for: step, at: level))
            }
            if let input = inputValue(of: step), !input.isPlainText {
                plan.project(
                    input, as: "stdin",
                    checks: step.input.map { instanceChecks(of: $0.from.id, for: step, at: level) }
                        ?? [])
            }
            addLoop(of: step, at: level, to: &plan)
        case .http:
            if let input = inputValue(of: step) { addBody(input, to: &plan) }
        case .group:
            if let input = step.input {
                // Fails, as the group would, if the input has nothing where `select` points.
                let wire = plan.wire(value(of: input, at: level))
                plan.pod.procedures.append(PodWorkflow.write("input", file: "input", wire: wire))
                plan.projections.append("input")
            }
        case .branch(let branch):
            addCases(of: branch, at: level, to: &plan)
        case .file:
            break
        }
        if case .decidedInPod(let condition) = conditionPlan(for: step) {
            let when = podCondition(condition, of: step, at: level, plan: &plan)
            plan.pod.procedures.append(
                PodWorkflow.write(
                    "run", file: "run", content: "true", when: when, after: plan.projections,
                    timeout: step.timeout))
            plan.outputs.append(.init(name: "run", file: "run", encoded: false, fallback: "false"))
            plan.decidesCondition = true
        }
        return plan
    }

    /// Adds the body of a request, as text Argo can put in the request (``PodScript/procflow``
    /// refuses a text with `{{` in it, which Argo would rewrite), and its `Content-Type`: JSON
    /// for a value that is not a string, what libcurl sends for text otherwise — as procflow
    /// sends them.
    private func addBody(_ value: ArgoValue, to plan: inout PreparePlan) {
        let wire = plan.wire(value)
        plan.pod.procedures.append(PodWorkflow.write("body", file: "body.text", wire: wire))
        plan.projections.append("body")
        plan.outputs.append(.init(name: "body", file: "body.text", encoded: false, fallback: ""))
        plan.pod.procedures += [
            // Succeeds only for a string: replacing needs text.
            .members([
                "id": "body-probe", "kind": "file", "op": "replace", "find": "x", "replace": "x",
                "input": wire, "continueOnError": true,
            ]),
            .members([
                "id": "body-text", "kind": "file", "op": "render",
                "text": .string(Self.textContentType),
                "path": .string(PodWorkflow.output("content-type")),
                "input": PodWorkflow.wire(from: "body-probe", select: nil),
            ]),
        ]
        plan.outputs.append(
            .init(
                name: "content-type", file: "content-type", encoded: false,
                fallback: "application/json"))
    }

    /// The `Content-Type` libcurl gives a text body, which procflow sends.
    static let textContentType = "application/x-www-form-urlencoded"

    /// Adds the choice of a branch's case: the index of the first case whose value equals the
    /// output it reads (a typed JSON comparison), or `otherwise`.
    private func addCases(of branch: Branch, at level: [String], to plan: inout PreparePlan) {
        let value = value(of: branch.on, at: level)
        let wire = plan.wire(value)
        plan.pod.procedures.append(PodWorkflow.write("on", file: "on", wire: wire))
        plan.projections.append("on")
        for (index, branchCase) in branch.cases.enumerated() {
            let equal: (JSONValue) -> Manifest = {
                .members(["output": wire, "equals": Manifest($0)])
            }
            let earlier = branch.cases[..<index].map { Manifest.members(["not": equal($0.equals)]) }
            let when =
                earlier.isEmpty
                ? equal(branchCase.equals) : ["all": .array(earlier + [equal(branchCase.equals)])]
            plan.pod.procedures.append(
                PodWorkflow.write(
                    "case-\(index)", file: "case", content: String(index), when: when,
                    after: ["on"]))
        }
        plan.outputs.append(
            .init(name: "case", file: "case", encoded: false, fallback: "otherwise"))
    }

    /// `condition` as the prepare pod's workflow decides it: `env` parts decided here and
    /// passed in, paths made absolute, commands run in the workspace with their text in the
    /// environment, outputs read from the values the pod was given.
    private func podCondition(
        _ condition: StepCondition, of step: Step, at level: [String], plan: inout PreparePlan
    ) -> Manifest {
        switch condition {
        case .environment(let name, let equals):
            let holds = ConditionPlan.holds(name: name, equals: equals, in: conditionEnvironment)
            let variable = "PROCFLOW_CONDITION_\(plan.pod.environment.count)"
            plan.pod.environment.append((variable, holds ? "true" : "false"))
            return .members(["env": .string(variable), "equals": "true"])
        case .exists(let path):
            plan.mountsWorkspace = true
            return .members(["exists": PodWorkflow.path(path)])
        case .command(let script):
            plan.mountsWorkspace = true
            let variable = "PROCFLOW_CONDITION_COMMAND_\(plan.pod.environment.count)"
            plan.pod.environment.append((variable, script))
            return .members([
                "command": .string(
                    "cd \(PodScript.workspace) && exec /bin/sh -c \"$\(variable)\"")
            ])
        case .output(let wire, let equals):
            let checks =
                presenceChecks(of: wire.from.id, for: step, at: level)
                + instanceChecks(of: wire.from.id, for: step, at: level)
            return .members([
                "output": plan.wire(value(of: wire, at: level), checks: checks),
                "equals": Manifest(equals),
            ])
        case .not(let inner):
            return .members(["not": podCondition(inner, of: step, at: level, plan: &plan)])
        case .all(let parts):
            return .members([
                "all": .array(parts.map { podCondition($0, of: step, at: level, plan: &plan) })
            ])
        case .any(let parts):
            return .members([
                "any": .array(parts.map { podCondition($0, of: step, at: level, plan: &plan) })
            ])
        }
    }

    /// Writes the template of the pod that prepares `step`.
    func writePrepareTemplate(_ name: String, plan: PreparePlan, for step: Step) {
        templates.append(
            procflowPod(
                name, role: "prepare", step: step, workflow: plan.workflow,
                values: plan.inputs.map { ($0.name, $0.file) },
                outputs: plan.outputs.map(\.manifest), image: options.procflowImage,
                mountsWorkspace: plan.mountsWorkspace))
    }

    /// Writes the template of the pod that checks `step`'s output: that JSON parses, as
    /// procflow requires, and that the output arrived, for a group that gives it.
    func writeFinisherTemplate(_ name: String, for step: Step) {
        let format = staticValue(of: step.id).format
        let pod = PodWorkflow(
            name: "\(step.id) (output)", variables: [], environment: [],
            procedures: [PodWorkflow.read("output", file: "value", format: format)])
        templates.append(
            procflowPod(
                name, role: "output", step: step, workflow: pod, values: [("value", "value")],
                outputs: givesGroupOutput(step) ? [Self.givenOutput] : [],
                image: options.procflowImage, mountsWorkspace: false))
    }

    /// The `given` output parameter: `true` once a pod has succeeded.
    static let givenOutput: Manifest = .members([
        "name": "given",
        "valueFrom": .members(["path": .string(PodScript.work + "/given"), "default": "false"]),
    ])

    /// The template of a pod that runs procflow on `workflow`, given `values`: each an input
    /// parameter and the file in `in/` it goes to.
    func procflowPod(
        _ name: String, role: String?, step: Step, workflow: PodWorkflow,
        values: [(parameter: String, file: String)],
        outputs: [Manifest], image: String, mountsWorkspace: Bool, extra: [Manifest.Member] = []
    ) -> Manifest {
        var annotations: [Manifest.Member] = [.init(Self.stepAnnotation, .string(step.id))]
        if let role { annotations.append(.init("procflow/role", .string(role))) }
        let text = Data(workflow.manifest.compactJSON.utf8).base64EncodedString()
        let artifacts: [Manifest] =
            [rawArtifact("workflow", path: PodScript.inputs + "/workflow.json", data: text)]
            + values.map {
                rawArtifact(
                    $0.parameter, path: PodScript.inputs + "/" + $0.file,
                    data: "{{inputs.parameters.\($0.parameter)}}")
            }
        if mountsWorkspace { usesWorkspace = true }
        var template: Manifest = .members([
            "name": .string(name),
            "metadata": ["annotations": .object(annotations)],
            "inputs": .members([
                "parameters": Manifest.nonEmpty(
                    values.map { .members(["name": .string($0.parameter)]) }),
                "artifacts": .array(artifacts),
            ]),
            "outputs": Manifest.nonEmpty(outputs).map { ["parameters": $0] },
            "container": .members([
                "image": .string(image),
                "command": .strings(["/bin/sh", "-c", PodScript.procflow, "procflow"]),
                "workingDir": mountsWorkspace ? .string(PodScript.workspace) : nil,
                "volumeMounts": mountsWorkspace ? [Self.workspaceMount] : nil,
            ]),
        ])
        for member in extra { template = template.adding(member.key, member.value) }
        return template
    }

    /// The workspace volume, mounted where the workflow file's directory stands.
    static let workspaceMount: Manifest = .members([
        "name": "workspace", "mountPath": .string(PodScript.workspace),
    ])

    /// An input artifact whose content is `data`.
    func rawArtifact(_ name: String, path: String, data: String) -> Manifest {
        .members(["name": .string(name), "path": .string(path), "raw": ["data": .string(data)]])
    }
}

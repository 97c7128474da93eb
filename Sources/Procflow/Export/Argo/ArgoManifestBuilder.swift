import Foundation

/// Builds the Argo manifest of one workflow: indexes the steps, checks that Argo can express
/// them, then writes one DAG template per list of steps, from the workflow's down.
///
/// Each list of steps — the workflow's, a group's, each case of a branch — is a *level*, named
/// by the chain of DAG templates that lead to it: `[]` for the workflow, `["g"]` for group
/// `g`'s steps, `["b", "b#0"]` for the first case of branch `b` (`["b"]` is the DAG that
/// chooses the case). A step may depend on steps of its own level or of enclosing ones; what it
/// needs from an enclosing level is *imported*: the container task that enters its level waits
/// for the step and passes its tasks' statuses (and its value) in as parameters, and a gate
/// task in the level turns those statuses back into a phase that `depends` can read.
final class ArgoManifestBuilder {
    /// A step of an enclosing level that a level needs.
    struct Import: Equatable {
        /// The step's id.
        var id: String
        /// Whether a step of the level takes its output.
        var needsValue: Bool
        /// Whether a step of the level reads it in a condition, so needs to know whether this
        /// group gave an output.
        var needsGiven: Bool
    }

    /// The template of the workflow's DAG.
    static let entrypoint = "procflow--main"
    /// The template of gates and of each DAG's final task: a suspension of no time, which runs
    /// no pod.
    static let noop = "procflow--noop"
    /// The last task of each DAG: it runs unless a step failed without `continueOnError`, so
    /// that the DAG's phase is the workflow's outcome as procflow would report it.
    static let end = "procflow--end"
    /// The annotation holding a template's step id.
    static let stepAnnotation = "procflow/step-id"

    let workflow: Workflow
    let options: ArgoExportOptions
    let source: SourceText?
    /// Every step, with where it stands.
    let nested: [String: NestedStep]
    /// The level of each step.
    let levels: [String: [String]]
    /// The environment `env` conditions are decided in.
    let conditionEnvironment: [String: String]
    var names = ArgoNames.empty
    /// What each level imports from enclosing ones, in order of first use.
    var imports: [[String]: [Import]] = [:]
    /// Templates in the order they are written; the workflow's DAG first.
    var templates: [Manifest] = []
    var diagnostics: [Diagnostic] = []
    var warnings: [String] = []
    /// Whether some pod mounts the workspace volume.
    var usesWorkspace = false

    init(workflow: Workflow, options: ArgoExportOptions, source: SourceText?) {
        self.workflow = workflow
        self.options = options
        self.source = source
        var nested: [String: NestedStep] = [:]
        var steps: [String: Step] = [:]
        workflow.forEachStep {
            nested[$0.step.id] = $0
            steps[$0.step.id] = $0.step
        }
        self.nested = nested
        var levels: [String: [String]] = [:]
        for (id, place) in nested {
            var chain: [String] = []
            for container in place.path {
                chain.append(container)
                if case .branch = steps[container]?.kind {
                    let taken = place.cases.first { $0.branch == container }
                    chain.append(container + "#" + (taken?.index.map(String.init) ?? "otherwise"))
                }
            }
            levels[id] = chain
        }
        self.levels = levels
        var environment = options.environment
        for (name, value) in workflow.variables { environment[name] = value }
        for (name, value) in workflow.environment { environment[name] = value }
        // procflow sets these for every command and condition.
        environment["PROCFLOW"] = environment["PROCFLOW"] ?? "procflow"
        environment["PROCFLOW_RUN_ID"] = environment["PROCFLOW_RUN_ID"] ?? "argo"
        conditionEnvironment = environment
    }

    /// The manifest, or every reason it cannot be written.
    func build() throws(ArgoExportError) -> ArgoExport {
        do {
            names = try ArgoNames(ids: workflow.allSteps.map(\.id))
        } catch {
            let step = nested[error.second]!.step
            problem(
                step,
                "cannot give \"\(error.first)\" and \"\(error.second)\" different Argo names: rename one"
            )
        }
        checkExportable()
        guard diagnostics.isEmpty else {
            throw ArgoExportError(diagnostics: diagnostics, sources: workflow.sources)
        }
        collectImports()
        buildLevel([], steps: workflow.steps, template: Self.entrypoint, inputs: [])
        templates.append(.members(["name": .string(Self.noop), "suspend": ["duration": "0"]]))
        return ArgoExport(manifest: manifest, warnings: warnings)
    }

    private var manifest: Manifest {
        var ids: [Manifest.Member] = []
        workflow.forEachStep { ids.append(.init(names[$0.step.id], .string($0.step.id))) }
        let workspace: Manifest = .members([
            "metadata": ["name": "workspace"],
            "spec": .members([
                "accessModes": ["ReadWriteOnce"],
                "resources": ["requests": ["storage": "1Gi"]],
            ]),
        ])
        return .members([
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Workflow",
            "metadata": .members([
                "generateName": .string(ArgoNames.generateName(for: workflow.name)),
                "annotations": .members([
                    "procflow/workflow": .string(workflow.name),
                    "procflow/step-ids": .string(Manifest.object(ids).compactJSON),
                ]),
            ]),
            "spec": .members([
                "entrypoint": .string(Self.entrypoint),
                "parallelism": workflow.maxConcurrency.map(Manifest.integer),
                "volumeClaimTemplates": usesWorkspace ? [workspace] : nil,
                "templates": .array(templates),
            ]),
        ])
    }

    // MARK: - Steps

    /// The step `id`.
    func step(_ id: String) -> Step {
        nested[id]!.step
    }

    /// The tasks `step` becomes in its DAG.
    func tasks(of step: Step) -> StepTasks {
        let name = names[step.id]
        var given: String?
        if case .group(let group) = step.kind, group.outputFrom != nil { given = name + "--given" }
        return StepTasks(
            main: name, prepare: needsPrepare(step) ? name + "--prepare" : nil,
            finisher: needsFinisher(step) ? name + "--output" : nil, given: given,
            absorbsFailures: step.forEach != nil && step.continueOnError)
    }

    /// How `step` depends on each step it runs after, in the order the file names them.
    ///
    /// A `forEach` waits for what it names in `dependsOn` and for its list as any step does;
    /// the other steps it takes data from only have to have finished: each instance takes
    /// their data, and is skipped without it (see ``instancePrerequisites(of:)``).
    func prerequisites(of step: Step) -> [(id: String, dependency: StepTasks.Dependency)] {
        let named = Set(step.dependsOn.map(\.id))
        let list = step.forEach?.listWire?.from.id
        return step.prerequisites.map { id in
            if step.forEach != nil, id != list {
                // Named in dependsOn: as any step; else only for its instances' data.
                guard named.contains(id) else { return (id, .always) }
            } else if let dependency = wireDependency(of: step, on: id) {
                return (id, dependency)
            }
            if step.always { return (id, .always) }
            return (id, self.step(id).continueOnError ? .tolerated : .plain)
        }
    }

    /// How `step` depends on `id` for the data it takes from it; `nil` if it takes none.
    private func wireDependency(of step: Step, on id: String) -> StepTasks.Dependency? {
        let roles = step.wires.filter { $0.wire.from.id == id }.map(\.role)
        guard !roles.isEmpty else { return nil }
        guard roles.allSatisfy({ $0 == .condition }) else { return .data }
        // procflow reads a missing output as no value in a condition, where it lets the step
        // run: an always step, or a group that gave no output.
        if step.always { return .always }
        return givenArgument(of: id, at: []) != nil ? .condition : .data
    }

    /// For a `forEach`, how each instance depends on the steps it takes data from, but the
    /// list's: an instance runs only when the step would (their `dependsOn` is the step's).
    func instancePrerequisites(of step: Step) -> [(id: String, dependency: StepTasks.Dependency)] {
        guard step.forEach != nil else { return [] }
        var seen: Set<String> = []
        return step.wires.compactMap { wire, role in
            guard role != .forEach, seen.insert(wire.from.id).inserted,
                let dependency = wireDependency(of: step, on: wire.from.id)
            else { return nil }
            return (wire.from.id, dependency)
        }
    }

    /// A task's status as a step of `level` reads it in a `when`: its own DAG's, or passed in.
    func statusTag(of task: String, owner id: String, at level: [String]) -> String {
        levels[id] == level ? "{{tasks.\(task).status}}" : "{{inputs.parameters.\(task)--status}}"
    }

    /// For a `forEach`'s prepare pod: what must hold of the statuses of `id`'s tasks for its
    /// output to be there, where the step runs without it (its instances are then skipped).
    func instanceChecks(of id: String, for step: Step, at level: [String]) -> [PreparePlan.Check] {
        guard instancePrerequisites(of: step).contains(where: { $0.id == id }) else { return [] }
        let source = tasks(of: self.step(id))
        return [source.main, source.finisher, source.given].compactMap { $0 }.map {
            .init(
                argument: statusTag(of: $0, owner: id, at: level), format: .text,
                equals: .string("Succeeded"))
        }
    }

    /// What must hold of the pod's inputs for the output of `id`, read by a condition of
    /// `step`, to be there, when it may not be: `step` runs even without it (it is `always`,
    /// or `id` is a group, which can succeed without giving an output). Empty when `step` only
    /// runs once the output is there.
    func presenceChecks(of id: String, for step: Step, at level: [String]? = nil) -> [PreparePlan
        .Check]
    {
        let level = level ?? levels[step.id]!
        let roles = step.wires.filter { $0.wire.from.id == id }.map(\.role)
        guard !roles.isEmpty, roles.allSatisfy({ $0 == .condition }) else { return [] }
        let given = givenArgument(of: id, at: level)
        var checks: [PreparePlan.Check] = []
        if step.always {
            let source = tasks(of: self.step(id))
            for task in [source.main, source.finisher].compactMap({ $0 }) {
                let argument =
                    levels[id] == level
                    ? "{{tasks.\(task).status}}" : "{{inputs.parameters.\(task)--status}}"
                checks.append(
                    .init(argument: argument, format: .text, equals: .string("Succeeded")))
            }
        }
        if let given { checks.append(.init(argument: given, format: .json, equals: .bool(true))) }
        return checks
    }

    /// For a group that gives an output, the tag that says, to a task of `level`, whether it
    /// gave one (`true` or `false`); `nil` for other steps.
    func givenArgument(of id: String, at level: [String]) -> String? {
        guard case .group(let group) = step(id).kind, group.outputFrom != nil else { return nil }
        if levels[id] == level { return "{{tasks.\(names[id]).outputs.parameters.given}}" }
        return "{{inputs.parameters.\(names[id])--given}}"
    }

    /// Whether a step is the `outputFrom` of its group, so that the group must know whether
    /// it gave its output.
    func givesGroupOutput(_ step: Step) -> Bool {
        guard let parent = nested[step.id]?.parent else { return false }
        return self.step(parent).givesOutput(of: step.id)
    }

    /// Whether a step's output is checked, or announced, by a pod after it: JSON from a
    /// command or a request must parse (procflow fails the step if it does not), a request's
    /// body that leaves its group needs a pod to say that it arrived, and a `forEach`'s
    /// output is gathered from its instances'.
    func needsFinisher(_ step: Step) -> Bool {
        if step.forEach != nil { return true }
        switch step.kind {
        case .shell(let shell): return shell.output == .json
        case .http(let http):
            return http.output == .json || (http.output == .text && givesGroupOutput(step))
        default: return false
        }
    }

    /// What the step's output is, as far as the file tells: text or JSON, and the part of it a
    /// `select` file step takes.
    func staticValue(of id: String) -> (format: OutputFormat, select: JSONPointer?) {
        let step = step(id)
        switch step.kind {
        case .file(.select(let pointer)):
            let input = staticInput(of: step) ?? (.json, nil)
            return (input.format, concatenate(input.select, pointer))
        case .group:
            guard let child = step.outputChild else { return (.none, nil) }
            return staticValue(of: child.id)
        default:
            return (step.outputFormat, nil)
        }
    }

    /// What the step's input is, if it takes one: its own wire's, or its group's.
    func staticInput(of step: Step) -> (format: OutputFormat, select: JSONPointer?)? {
        if let input = step.input {
            let source = staticValue(of: input.from.id)
            return (source.format, concatenate(source.select, input.select))
        }
        guard let parent = nested[step.id]?.parent, self.step(parent).forwardsInput(to: step.id)
        else { return nil }
        return staticInput(of: self.step(parent))
    }

    /// The output of step `id`, as read by a step of `level`.
    func value(of id: String, at level: [String]) -> ArgoValue {
        let (format, select) = staticValue(of: id)
        let name = names[id]
        let source: ArgoValue.Source
        if levels[id] != level {
            source = .input(name + "--value")
        } else if step(id).forEach != nil {
            source = .parameter(task: tasks(of: step(id)).finisher!, name: "output")
        } else if case .http = step(id).kind {
            source = .result(task: name)
        } else {
            source = .parameter(task: name, name: "output")
        }
        return ArgoValue(source: source, format: format, select: select)
    }

    /// What `wire` takes, as read by a step of `level`.
    func value(of wire: Wire, at level: [String]) -> ArgoValue {
        value(of: wire.from.id, at: level).selecting(wire.select)
    }

    /// The input `step` reads, as its level reads it: its own wire's, or its group's.
    func inputValue(of step: Step) -> ArgoValue? {
        let level = levels[step.id]!
        if let input = step.input { return value(of: input, at: level) }
        guard let (format, select) = staticInput(of: step) else { return nil }
        return ArgoValue(source: .input("input"), format: format, select: select)
    }

    private func concatenate(_ first: JSONPointer?, _ second: JSONPointer?) -> JSONPointer? {
        let tokens = (first?.tokens ?? []) + (second?.tokens ?? [])
        return tokens.isEmpty ? nil : JSONPointer(tokens: tokens)
    }

    // MARK: - Problems

    /// Records that `step` cannot be exported, at `field` of it (or the step itself).
    func problem(_ step: Step, _ message: String, field: String? = nil) {
        problem(
            at: field.map { step.pointer.appending($0) } ?? step.pointer, offset: step.offset,
            "cannot export \"\(step.id)\" to Argo: \(message)")
    }

    /// Records a problem at `pointer`, the value at byte `offset` of the file.
    func problem(at pointer: JSONPointer, offset: Int, _ message: String) {
        // The files it was loaded from say which one the offset is in (an included file's
        // steps have theirs); else the bytes given, of the workflow file alone.
        if let located = workflow.sources?.locate(offset) {
            diagnostics.append(
                Diagnostic(
                    file: located.file, location: located.location, pointer: pointer,
                    message: message))
            return
        }
        diagnostics.append(
            Diagnostic(
                file: workflow.path, location: source?.location(ofOffset: offset),
                pointer: pointer, message: message))
    }

    /// Records that the manifest only approximates what `step` asks for.
    func warn(_ step: Step, _ message: String) {
        warnings.append("\"\(step.id)\": \(message)")
    }
}

extension ArgoNames {
    /// No names yet.
    static let empty = try! ArgoNames(ids: [])
}

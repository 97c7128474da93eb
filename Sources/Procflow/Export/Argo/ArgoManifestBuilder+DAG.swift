extension ArgoManifestBuilder {
    /// Works out what each level imports: for a step that depends on a step of an enclosing
    /// level, every level from just inside that one down to the step's own.
    func collectImports() {
        workflow.forEachStep { place in
            let step = place.step
            let level = levels[step.id]!
            for (id, _) in prerequisites(of: step) {
                let target = levels[id]!
                guard target.count < level.count else { continue }
                for depth in (target.count + 1)...level.count {
                    let key = Array(level.prefix(depth))
                    var list = imports[key, default: []]
                    let value = step.wires.contains { $0.wire.from.id == id }
                    // A condition that reads a group's output needs to know whether it gave one.
                    let given =
                        givenArgument(of: id, at: []) != nil
                        && !presenceChecks(of: id, for: step).isEmpty
                    if let index = list.firstIndex(where: { $0.id == id }) {
                        list[index].needsValue = list[index].needsValue || value
                        list[index].needsGiven = list[index].needsGiven || given
                    } else {
                        list.append(Import(id: id, needsValue: value, needsGiven: given))
                    }
                    imports[key] = list
                }
            }
        }
    }

    /// The parameters a level's template takes for what it imports.
    func importParameters(of level: [String]) -> [String] {
        imports[level, default: []].flatMap { item in
            tasks(of: step(item.id)).all.map { $0 + "--status" }
                + (item.needsValue ? [names[item.id] + "--value"] : [])
                + (item.needsGiven ? [names[item.id] + "--given"] : [])
        }
    }

    /// The arguments a task of `level` passes to the level `inner` it enters for what `inner`
    /// imports, and the steps of `level` it must wait for.
    func importArguments(into inner: [String], from level: [String]) -> (
        arguments: [Manifest], waits: [PhaseExpression]
    ) {
        var arguments: [Manifest] = []
        var waits: [PhaseExpression] = []
        for item in imports[inner, default: []] {
            let target = step(item.id)
            let here = levels[item.id] == level
            let targetTasks = tasks(of: target)
            if here { waits.append(targetTasks.finished) }
            for task in targetTasks.all {
                let value =
                    here ? "{{tasks.\(task).status}}" : "{{inputs.parameters.\(task)--status}}"
                arguments.append(parameter(task + "--status", value))
            }
            if item.needsValue {
                arguments.append(
                    parameter(names[item.id] + "--value", value(of: item.id, at: level).argument))
            }
            if item.needsGiven, let given = givenArgument(of: item.id, at: level) {
                arguments.append(parameter(names[item.id] + "--given", given))
            }
        }
        return (arguments, waits)
    }

    /// Writes the DAG template `template` for the steps of `level`, and everything they need.
    ///
    /// - Parameters:
    ///   - inputs: the template's input parameters besides its imports.
    ///   - outputs: its output parameters.
    func buildLevel(
        _ level: [String], steps: [Step], template: String, inputs: [String],
        outputs: [Manifest] = [], extra: [Manifest.Member] = []
    ) {
        let slot = reserveTemplate()
        var tasks = gates(for: level, steps: steps)
        for step in steps { tasks += self.tasks(for: step, at: level) }
        writeDAG(
            slot, template: template, level: level, tasks: tasks, steps: steps, inputs: inputs,
            outputs: outputs, extra: extra)
    }

    /// A place in the list of templates, for a DAG's template to come before those its tasks
    /// use.
    func reserveTemplate() -> Int {
        templates.append([])
        return templates.count - 1
    }

    /// Fills `slot` with the DAG template `template` of `tasks` and its final task.
    func writeDAG(
        _ slot: Int, template: String, level: [String], tasks: [Manifest], steps: [Step],
        inputs: [String], outputs: [Manifest] = [], extra: [Manifest.Member] = []
    ) {
        let all = tasks + [endTask(after: tasks, steps: steps)]
        let parameters = (inputs + importParameters(of: level)).map {
            Manifest.members(["name": .string($0)])
        }
        var dag: Manifest = .members([
            "name": .string(template),
            "inputs": parameters.isEmpty ? nil : ["parameters": .array(parameters)],
            "outputs": Manifest.nonEmpty(outputs).map { ["parameters": $0] },
        ])
        for member in extra { dag = dag.adding(member.key, member.value) }
        templates[slot] = dag.adding("dag", .members(["failFast": false, "tasks": .array(all)]))
    }

    /// The gates of a level: for each imported step and each way a step of the level depends
    /// on it, a task that runs when the imported step's statuses allow.
    private func gates(for level: [String], steps: [Step]) -> [Manifest] {
        var gates: [Manifest] = []
        var seen: Set<String> = []
        for step in steps {
            for (id, dependency) in prerequisites(of: step)
            where levels[id] != level && dependency != .always {
                let name = gateName(id, dependency)
                guard seen.insert(name).inserted else { continue }
                let allows = tasks(of: self.step(id)).allows(dependency)
                gates.append(
                    .members([
                        "name": .string(name), "template": .string(Self.noop),
                        "when": .string(
                            allows.when(tag: { "{{inputs.parameters.\($0)--status}}" })),
                    ]))
            }
        }
        return gates
    }

    private func gateName(_ id: String, _ dependency: StepTasks.Dependency) -> String {
        names[id] + "--" + dependency.rawValue
    }

    /// The level's final task: it runs once every task has finished, unless one of a step
    /// without `continueOnError` failed, or a step inside a group or branch did.
    private func endTask(after tasks: [Manifest], steps: [Step]) -> Manifest {
        var tolerated: Set<String> = []
        for step in steps where step.continueOnError {
            tolerated.formUnion(self.tasks(of: step).all)
            // A group's or branch's DAG fails only when a step inside failed without
            // continueOnError, which fails procflow's run even so: dependents of the group run,
            // but the failure reaches the run's outcome.
            if step.isContainer { tolerated.remove(names[step.id]) }
        }
        let parts = tasks.compactMap { task -> PhaseExpression? in
            guard case .string(let name)? = task["name"] else { return nil }
            if tolerated.contains(name) { return .finished(name) }
            return .any([.phase(name, .succeeded), .phase(name, .skipped), .phase(name, .omitted)])
        }
        return .members([
            "name": .string(Self.end), "template": .string(Self.noop),
            "depends": PhaseExpression.conjunction(parts).map { .string($0.depends) },
        ])
    }

    /// What must hold for `step` to run, from the steps it depends on: their outcomes (or the
    /// gates of imported ones), and, for a group or branch, that the steps its levels import
    /// from this one have finished.
    private func requirements(of step: Step, at level: [String]) -> [PhaseExpression] {
        var parts: [PhaseExpression] = []
        for (id, dependency) in prerequisites(of: step) {
            if levels[id] == level {
                parts.append(tasks(of: self.step(id)).allows(dependency))
            } else if dependency != .always {
                parts.append(.phase(gateName(id, dependency), .succeeded))
            }
        }
        for inner in innerLevels(of: step, at: level) {
            parts += importArguments(into: inner, from: level).waits
        }
        return parts
    }

    /// The levels a group or branch opens directly below `level`.
    func innerLevels(of step: Step, at level: [String]) -> [[String]] {
        switch step.kind {
        case .group: return [level + [step.id]]
        case .branch: return [level + [step.id]]
        default: return []
        }
    }

    /// The tasks of one step, in the order they run.
    private func tasks(for step: Step, at level: [String]) -> [Manifest] {
        let stepTasks = tasks(of: step)
        let depends = PhaseExpression.conjunction(requirements(of: step, at: level))
        let continueOn: Manifest? = step.continueOnError ? ["failed": true, "error": true] : nil
        var list: [Manifest] = []
        var mainDepends = depends?.depends
        var when: String?
        var arguments = mainArguments(of: step, at: level)
        if let prepare = stepTasks.prepare {
            let plan = preparePlan(for: step, at: level)
            writePrepareTemplate(prepare, plan: plan, for: step)
            list.append(
                task(
                    prepare, template: prepare, depends: depends?.depends,
                    arguments: plan.arguments, continueOn: continueOn))
            mainDepends = "\(prepare).Succeeded"
            if plan.decidesCondition {
                when = "{{tasks.\(prepare).outputs.parameters.run}} == true"
            }
            arguments = arguments.map { argument in
                guard case .string(let name)? = argument["name"],
                    plan.outputs.contains(where: { $0.name == name })
                else { return argument }
                return parameter(name, "{{tasks.\(prepare).outputs.parameters.\(name)}}")
            }
        }
        if case .never = conditionPlan(for: step) { when = "false" }
        writeTemplate(for: step, at: level)
        var loop: Manifest.Member?
        if step.forEach != nil {
            let members = loopMembers(of: step, at: level, when: when)
            (loop, when) = (members.loop, members.when)
            arguments += members.arguments
        }
        list.append(
            task(
                stepTasks.main, template: names[step.id], depends: mainDepends, when: when,
                arguments: arguments, continueOn: continueOn, loop: loop))
        if let finisher = stepTasks.finisher, step.forEach != nil {
            writeGatherTemplate(finisher, for: step)
            list.append(
                task(
                    finisher, template: finisher, depends: gatherDepends(of: step),
                    arguments: gatherArguments(of: step), continueOn: continueOn))
        } else if let finisher = stepTasks.finisher {
            writeFinisherTemplate(finisher, for: step)
            list.append(
                task(
                    finisher, template: finisher, depends: "\(stepTasks.main).Succeeded",
                    arguments: [parameter("value", value(of: step.id, at: level).argument)],
                    continueOn: continueOn))
        }
        if let given = stepTasks.given {
            list.append(
                task(
                    given, template: Self.noop, depends: "\(stepTasks.main).Succeeded",
                    when: "{{tasks.\(stepTasks.main).outputs.parameters.given}} == true"))
        }
        return list
    }

    /// The arguments of a step's main task: its wired values, or the names of those its
    /// prepare task gives (replaced by the caller), and what its levels import.
    private func mainArguments(of step: Step, at level: [String]) -> [Manifest] {
        var arguments: [Manifest] = []
        switch step.kind {
        case .shell(let shell):
            for (name, wire) in shell.inputs {
                arguments.append(parameter("env-" + name, value(of: wire, at: level).argument))
            }
            if let input = inputValue(of: step) {
                arguments.append(parameter("stdin", input.argument))
            }
        case .http:
            // Both come from the prepare pod.
            if inputValue(of: step) != nil {
                arguments += [parameter("body", ""), parameter("content-type", "")]
            }
        case .file:
            if let input = inputValue(of: step) {
                arguments.append(parameter("input", input.argument))
            }
        case .group:
            if let input = inputValue(of: step) {
                arguments.append(parameter("input", input.argument))
            }
        case .branch:
            arguments.append(parameter("case", ""))
        }
        for inner in innerLevels(of: step, at: level) {
            arguments += importArguments(into: inner, from: level).arguments
        }
        return arguments
    }

    /// A DAG task; with `loop` (`withItems` or `withParam`), one per item.
    func task(
        _ name: String, template: String, depends: String? = nil, when: String? = nil,
        arguments: [Manifest] = [], continueOn: Manifest? = nil, loop: Manifest.Member? = nil
    ) -> Manifest {
        Manifest.members([
            "name": .string(name), "template": .string(template),
            "depends": depends.map(Manifest.string), "when": when.map(Manifest.string),
            "arguments": Manifest.nonEmpty(arguments).map { ["parameters": $0] },
            "continueOn": continueOn,
        ]).adding(loop?.key ?? "", loop?.value)
    }

    /// `{"name": name, "value": value}`.
    func parameter(_ name: String, _ value: String) -> Manifest {
        .members(["name": .string(name), "value": .string(value)])
    }
}

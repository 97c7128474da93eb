import Foundation

@testable import Procflow

/// Runs an exported manifest here as Argo's controller would: each DAG's tasks once their
/// `depends` tasks have finished — omitted when `depends` is false, skipped when `when` is —
/// with `{{…}}` tags filled in from phases, outputs and inputs, nested DAGs entered, gates and
/// final tasks passed through, and every pod run for real by a ``PodSimulator``. A DAG
/// succeeds when its final task does, as Argo judges a DAG by its last task.
///
/// It reads the only forms of `depends` and `when` the exporter writes. HTTP templates are not
/// simulated.
struct ArgoRunSimulator {
    let manifest: ExportedManifest
    let pods: PodSimulator
    /// The phase of each step's tasks, by step id, then role (`main`, `prepare`, `output`).
    private(set) var phases: [String: [String: String]] = [:]

    init(manifest: ExportedManifest, pods: PodSimulator) {
        self.manifest = manifest
        self.pods = pods
    }

    /// Runs the workflow; returns the phase of its DAG.
    mutating func run() throws -> String {
        try runDAG(ArgoManifestBuilder.entrypoint, inputs: [:]).phase
    }

    /// What became of step `id`, in procflow's words: succeeded, failed or skipped.
    func outcome(of id: String) -> String {
        guard let tasks = phases[id] else { return "skipped" }
        if ["Failed", "Error"].contains(tasks["prepare"] ?? "") { return "failed" }
        guard let main = tasks["main"] else { return "skipped" }
        switch main {
        case "Succeeded":
            return ["Failed", "Error"].contains(tasks["output"] ?? "") ? "failed" : "succeeded"
        case "Failed", "Error": return "failed"
        default: return "skipped"
        }
    }

    private mutating func runDAG(_ name: String, inputs: [String: String]) throws -> (
        phase: String, outputs: [String: String]
    ) {
        let template = try manifest.template(name)
        guard case .array(let tasks)? = template.value(at: JSONPointer(tokens: ["dag", "tasks"]))
        else {
            throw PodSimulator.SimulationError("\(name) is not a DAG")
        }
        var phase: [String: String] = [:]
        var outputs: [String: [String: String]] = [:]
        /// A looped task's aggregate of its succeeded children's output parameters, as Argo
        /// gives `{{tasks.NAME.outputs.parameters}}`.
        var aggregates: [String: String] = [:]
        /// `text` with its tags filled in; with `blanking`, the outputs of tasks that did not
        /// run become their producer's default, "".
        func fill(_ text: String, blanking: Bool = true) -> String {
            var text = text
            for (task, value) in phase {
                text = text.replacingOccurrences(of: "{{tasks.\(task).status}}", with: value)
                text = text.replacingOccurrences(
                    of: "{{=sprig.b64enc(tasks['\(task)'].outputs.result ?? '')}}",
                    with: (outputs[task]?["result"] ?? "").encoded)
            }
            for (task, aggregate) in aggregates {
                text = text.replacingOccurrences(
                    of: "{{tasks.\(task).outputs.parameters}}", with: aggregate)
            }
            for (task, values) in outputs {
                for (parameter, value) in values {
                    text = text.replacingOccurrences(
                        of: "{{tasks.\(task).outputs.parameters.\(parameter)}}", with: value)
                }
            }
            for (parameter, value) in inputs {
                text = text.replacingOccurrences(
                    of: "{{inputs.parameters.\(parameter)}}", with: value)
            }
            guard blanking else { return text }
            return text.replacing(
                /\{\{tasks\.[-a-zA-Z0-9]+\.outputs\.parameters\.[-a-zA-Z0-9_]+\}\}/, with: "")
        }
        while phase.count < tasks.count {
            var progressed = false
            for task in tasks {
                let taskName = ExportedManifest.string(task, "name")!
                guard phase[taskName] == nil else { continue }
                let depends = ExportedManifest.string(task, "depends")
                let names = depends.map(Self.taskNames) ?? []
                guard names.allSatisfy({ phase[$0] != nil }) else { continue }
                progressed = true
                var logic = depends.map { BooleanExpression.depends($0, phases: phase) }
                // A task that does not run gives its template's output defaults, as Argo has it.
                let defaults = try outputDefaults(ExportedManifest.string(task, "template")!)
                if logic?.evaluate() == false {
                    phase[taskName] = "Omitted"
                    outputs[taskName] = defaults
                    continue
                }
                if let items = try loopItems(of: task, fill: { fill($0) }) {
                    let looped = try runLoop(task, items: items, fill: { fill($0) })
                    phase[taskName] = looped.phase
                    outputs[taskName] = looped.phase == "Skipped" ? defaults : [:]
                    if looped.phase != "Skipped" { aggregates[taskName] = looped.aggregate }
                    record(task, phase: looped.phase)
                    continue
                }
                var condition = ExportedManifest.string(task, "when").map {
                    BooleanExpression.when(fill($0))
                }
                if condition?.evaluate() == false {
                    phase[taskName] = "Skipped"
                    outputs[taskName] = defaults
                    record(task, phase: "Skipped")
                    continue
                }
                let (result, values) = try runTemplate(
                    ExportedManifest.string(task, "template")!,
                    arguments: Self.arguments(of: task, fill: { fill($0) }))
                phase[taskName] = result
                outputs[taskName] = values
                record(task, phase: result)
            }
            if !progressed { throw PodSimulator.SimulationError("\(name): no task can run") }
        }
        var given: [String: String] = [:]
        if case .array(let list)? = template.value(
            at: JSONPointer(tokens: ["outputs", "parameters"]))
        {
            for output in list {
                let name = ExportedManifest.string(output, "name")!
                let reference = ExportedManifest.string(output, "valueFrom", "parameter") ?? ""
                let filled = fill(reference, blanking: false)
                given[name] =
                    filled.contains("{{")
                    ? ExportedManifest.string(output, "valueFrom", "default") : filled
            }
        }
        return (phase[ArgoManifestBuilder.end] == "Succeeded" ? "Succeeded" : "Failed", given)
    }

    /// The items a task loops over: its `withItems`, or its `withParam` filled in and parsed;
    /// `nil` for a task without a loop.
    private func loopItems(of task: JSONValue, fill: (String) -> String) throws -> [JSONValue]? {
        if case .array(let items)? = task.value(at: JSONPointer(tokens: ["withItems"])) {
            return items
        }
        guard let parameter = ExportedManifest.string(task, "withParam") else { return nil }
        guard case .array(let items) = try JSONParser.parse(Array(fill(parameter).utf8)).plain
        else { throw PodSimulator.SimulationError("withParam is not a JSON list: \(parameter)") }
        return items
    }

    /// Runs a looped task as Argo does: one child per item, `{{item.KEY}}` filled into its
    /// condition and arguments; skipped where its condition is false. The group is skipped
    /// for no items, else failed if a child failed, else succeeded; its aggregate lists the
    /// output parameters of the children that succeeded, in item order.
    private mutating func runLoop(
        _ task: JSONValue, items: [JSONValue], fill: (String) -> String
    ) throws -> (phase: String, aggregate: String) {
        guard !items.isEmpty else { return ("Skipped", "") }
        var groupPhase = "Succeeded"
        var aggregate: [JSONValue] = []
        for item in items {
            func fillItem(_ text: String) -> String {
                var text = text
                if case .object(let fields) = item {
                    for (key, value) in fields {
                        text = text.replacingOccurrences(of: "{{item.\(key)}}", with: value.text)
                    }
                }
                return fill(text.replacingOccurrences(of: "{{item}}", with: item.text))
            }
            if let when = ExportedManifest.string(task, "when") {
                var condition = BooleanExpression.when(fillItem(when))
                if !condition.evaluate() { continue }
            }
            let (result, values) = try runTemplate(
                ExportedManifest.string(task, "template")!,
                arguments: Self.arguments(of: task, fill: fillItem))
            if result == "Succeeded" {
                aggregate.append(.object(values.mapValues(JSONValue.string)))
            } else {
                groupPhase = result
            }
        }
        return (groupPhase, JSONWriter.string(.array(aggregate)))
    }

    /// A task's arguments, by name, their tags filled in by `fill`.
    private static func arguments(of task: JSONValue, fill: (String) -> String) -> [String: String]
    {
        var arguments: [String: String] = [:]
        if case .array(let list)? = task.value(
            at: JSONPointer(tokens: ["arguments", "parameters"]))
        {
            for argument in list {
                arguments[ExportedManifest.string(argument, "name")!] = fill(
                    ExportedManifest.string(argument, "value")!)
            }
        }
        return arguments
    }

    /// The defaults of a template's output parameters.
    private func outputDefaults(_ name: String) throws -> [String: String] {
        var defaults: [String: String] = [:]
        let template = try manifest.template(name)
        if case .array(let list)? = template.value(
            at: JSONPointer(tokens: ["outputs", "parameters"]))
        {
            for output in list {
                if let name = ExportedManifest.string(output, "name"),
                    let value = ExportedManifest.string(output, "valueFrom", "default")
                {
                    defaults[name] = value
                }
            }
        }
        return defaults
    }

    private mutating func runTemplate(_ name: String, arguments: [String: String]) throws -> (
        String, [String: String]
    ) {
        let template = try manifest.template(name)
        if template.value(at: JSONPointer(tokens: ["dag"])) != nil {
            return try runDAG(name, inputs: arguments)
        }
        if template.value(at: JSONPointer(tokens: ["suspend"])) != nil { return ("Succeeded", [:]) }
        let run = try pods.run(template, parameters: arguments)
        return (run.status == 0 ? "Succeeded" : "Failed", run.outputs)
    }

    /// Notes the phase of a step's task, from its template's annotations.
    private mutating func record(_ task: JSONValue, phase: String) {
        guard let name = ExportedManifest.string(task, "template"),
            let template = try? manifest.template(name),
            let id = ExportedManifest.string(
                template, "metadata", "annotations", "procflow/step-id")
        else { return }
        let role =
            ExportedManifest.string(template, "metadata", "annotations", "procflow/role") ?? "main"
        var phase = phase
        // A loop that continues on error: procflow's forEach succeeds, its failed instances
        // standing as null; what follows reads the phase as such (see StepTasks).
        if role == "main", task.value(at: JSONPointer(tokens: ["continueOn"])) != nil,
            (task.value(at: JSONPointer(tokens: ["withItems"]))
                ?? task.value(at: JSONPointer(tokens: ["withParam"]))) != nil,
            ["Failed", "Error"].contains(phase)
        {
            phase = "Succeeded"
        }
        phases[id, default: [:]][role] = phase
    }

    static func taskNames(in depends: String) -> [String] {
        depends.matches(of: /([a-zA-Z0-9][-a-zA-Z0-9]*?)\.[A-Z][a-zA-Z]+/).map {
            String($0.output.1)
        }
    }
}

/// `&&`, `||`, `!` and parentheses over atoms that `atom` reads: the logic of `depends` and
/// `when` as Argo evaluates them.
private struct BooleanExpression {
    var tokens: [String]
    let atom: (inout [String]) -> Bool

    mutating func evaluate() -> Bool { or() }

    private mutating func or() -> Bool {
        var value = and()
        while tokens.first == "||" {
            tokens.removeFirst()
            value = and() || value
        }
        return value
    }

    private mutating func and() -> Bool {
        var value = unary()
        while tokens.first == "&&" {
            tokens.removeFirst()
            value = unary() && value
        }
        return value
    }

    private mutating func unary() -> Bool {
        if tokens.first == "!" {
            tokens.removeFirst()
            return !unary()
        }
        if tokens.first == "(" {
            tokens.removeFirst()
            let value = or()
            tokens.removeFirst()
            return value
        }
        return atom(&tokens)
    }

    /// A `depends` expression: `task.Phase` atoms, true when the task has that phase.
    static func depends(_ text: String, phases: [String: String]) -> BooleanExpression {
        let tokens = text.matches(of: /&&|\|\||!|\(|\)|[a-zA-Z0-9-]+\.[A-Za-z]+/).map {
            String($0.output)
        }
        return BooleanExpression(tokens: tokens) { tokens in
            let parts = tokens.removeFirst().split(separator: ".")
            let wanted = parts[1] == "Errored" ? "Error" : String(parts[1])
            return phases[String(parts[0])] == wanted
        }
    }

    /// A `when`, tags filled in: `'a' == 'b'`, `x == true` and `false` atoms.
    static func when(_ text: String) -> BooleanExpression {
        let tokens = text.matches(of: /'[^']*'|&&|\|\||==|!|\(|\)|[A-Za-z0-9]+/).map {
            String($0.output)
        }
        return BooleanExpression(tokens: tokens) { tokens in
            let left = tokens.removeFirst()
            guard tokens.first == "==" else { return left == "true" }
            tokens.removeFirst()
            return left == tokens.removeFirst()
        }
    }
}

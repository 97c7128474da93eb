/// A workflow file, loaded and checked: what to run, in what order, with what data.
///
/// The format is documented in `workflows/README.md`, and its JSON Schema is
/// `workflows/procflow.schema.json`.
public struct Workflow: Sendable {
    /// The path of the file, as given.
    public var path: String
    /// The workflow's name: its `name`, or the file's name without extension.
    public var name: String
    /// Free text.
    public var description: String?
    /// Variables in file order, with their values (defaults, or `--var` overrides).
    public var variables: [(name: String, value: String)]
    /// Environment variables for every shell step, in file order.
    public var environment: [(name: String, value: String)]
    /// The variables of the workflow's dotenv files, in the order read: for every command,
    /// under procflow's own environment (which wins) and the workflow's `vars` and `env`.
    public var dotenv: [(name: String, value: String)] = []
    /// The dotenv file each of ``dotenv``'s names was last read from, as the file names it.
    public var dotenvFiles: [String: String] = [:]
    /// The names whose values are secrets (`secrets`, and every name of a dotenv file marked
    /// `secret`), in this file and the files it includes: their values are masked wherever
    /// procflow writes.
    public var secrets: Set<String> = []
    /// The variables and `env` entries of the files it includes, which reach only their own
    /// steps (an HTTP step's header, say): where a secret name may have other values.
    public var includedValues: [(name: String, value: String)] = []
    /// How many steps may run at once; `nil` for the default.
    public var maxConcurrency: Int?
    /// What every incremental step's result depends on besides its files (`cacheKey`).
    public var cacheKey: [CacheKeyPart] = []
    /// Where shell steps run unless a step, a group or `--executor` says otherwise; `nil`
    /// for this machine.
    public var executor: String? = nil
    /// The top-level steps, in file order.
    public var steps: [Step]
    /// The ids of the file's steps that ``restricted(to:)`` left out.
    public internal(set) var stepsLeftOut: Set<String> = []
    /// The files the workflow was loaded from, to say where a step's offset is.
    var sources: SourceMap? = nil

    /// Every file the workflow was read from, absolute: the file, the files it includes and
    /// its dotenv files (an optional one that was missing included). A change to any of them
    /// can change the workflow.
    public var files: [String] {
        let names = sources?.names ?? [path]
        return names.map { resolve($0, in: ".") } + (sources?.otherFiles ?? [])
    }
}

extension Workflow {
    /// How many steps the workflow has, how many of them hold others, and how many edges join
    /// them (dependencies, wires and group bindings), as `procflow graph` draws them.
    public var counts: (steps: Int, containers: Int, edges: Int) {
        var counts = (steps: 0, containers: 0, edges: 0)
        forEachStep { nested in
            let step = nested.step
            counts.steps += 1
            counts.edges += step.dependsOn.count + step.wireCount
            if step.isContainer { counts.containers += 1 }
            if case .group(let group) = step.kind {
                counts.edges += (group.inputTo == nil ? 0 : 1) + (group.outputFrom == nil ? 0 : 1)
            }
        }
        return counts
    }
}

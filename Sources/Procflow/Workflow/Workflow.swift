/// A workflow file, loaded and checked: what to run, in what order, with what data.
///
/// The format is documented in `workflows/README.md`, and its JSON Schema is
/// `workflows/procflow.schema.json`.
public struct Workflow: Sendable {
    /// The path of the file, as given.
    public var path: String
    public var name: String
    public var description: String?
    /// Variables in file order, with their values (defaults, or `--var` overrides).
    public var variables: [(name: String, value: String)]
    /// Environment variables for every shell step, in file order.
    public var environment: [(name: String, value: String)]
    /// How many steps may run at once; `nil` for the default.
    public var maxConcurrency: Int?
    /// The top-level steps, in file order.
    public var steps: [Step]
}

extension Workflow {
    /// How many steps the workflow has, how many of them hold others, and how many edges join
    /// them (dependencies, wires and group bindings), as `procflow graph` draws them.
    public var counts: (steps: Int, containers: Int, edges: Int) {
        var counts = (steps: 0, containers: 0, edges: 0)
        func count(_ steps: [Step]) {
            for step in steps {
                counts.steps += 1
                counts.edges += step.dependsOn.count + step.wireCount
                switch step.kind {
                case .group(let group):
                    counts.containers += 1
                    counts.edges +=
                        (group.inputTo == nil ? 0 : 1) + (group.outputFrom == nil ? 0 : 1)
                    count(group.steps)
                case .branch(let branch):
                    counts.containers += 1
                    for branchCase in branch.cases { count(branchCase.steps) }
                    count(branch.otherwise)
                default:
                    break
                }
            }
        }
        count(steps)
        return counts
    }
}

/// A procedure described in a workflow file.
public struct Step: Sendable {
    public var id: String
    public var description: String?
    public var kind: Kind
    /// Steps this one runs after, besides those it takes data from.
    public var dependsOn: [Reference]
    /// Data wired in: stdin of a shell step, the body of an HTTP request, the content of a file
    /// step, the input a group forwards to a child.
    public var input: Wire?
    /// Skips the step when false.
    public var when: StepCondition?
    /// Mutual-exclusion categories: no two steps sharing one run at once.
    public var mutex: [String]
    public var retry: Retry?
    /// Seconds the step may run, each attempt.
    public var timeout: Double?
    /// Whether a failure is only a warning, letting dependents run.
    public var continueOnError: Bool
    /// Whether the step runs even when steps it depends on failed or were skipped: for
    /// clean-up.
    public var always: Bool
    /// Where the step is in the file: its JSON Pointer, and the byte offset of its object
    /// (turned into a line and column only for a diagnostic).
    public var pointer: JSONPointer
    var offset: Int

    public enum Kind: Sendable {
        case shell(Shell)
        case http(HTTP)
        case file(FileOperation)
        case group(Group)
        case branch(Branch)

        /// The kind's name in the file.
        public var name: String {
            switch self {
            case .shell: return "shell"
            case .http: return "http"
            case .file: return "file"
            case .group: return "group"
            case .branch: return "branch"
            }
        }

        /// Whether the step does work itself, rather than holding other steps.
        public var isLeaf: Bool {
            switch self {
            case .shell, .http, .file: return true
            case .group, .branch: return false
            }
        }
    }

    /// The steps nested in this one: a group's, or all of a branch's cases.
    public var children: [Step] {
        switch kind {
        case .group(let group): return group.steps
        case .branch(let branch): return branch.cases.flatMap(\.steps) + branch.otherwise
        default: return []
        }
    }

    /// What the step's output is.
    public var outputFormat: OutputFormat {
        switch kind {
        case .shell(let shell): return shell.output
        case .http(let http): return http.output
        case .file(let operation): return operation.outputFormat
        case .group(let group):
            guard let source = group.outputFrom else { return .none }
            return group.steps.first { $0.id == source.id }?.outputFormat ?? .none
        case .branch: return .none
        }
    }
}

/// A mention of a step by id, with where the mention is.
public struct Reference: Sendable {
    public var id: String
    public var pointer: JSONPointer
    var offset: Int
}

/// Data taken from another step's output, optionally a part of a JSON output.
public struct Wire: Sendable {
    public var from: Reference
    /// The part of a JSON output to take.
    public var select: JSONPointer?
    public var pointer: JSONPointer
    var offset: Int
}

/// What becomes of a step's output.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// No output: other steps cannot take data from it.
    case none
    /// The output as text.
    case text
    /// The output parsed as JSON.
    case json
}

/// A command run by `/bin/sh -c` or directly.
public struct Shell: Sendable {
    public enum Command: Sendable {
        /// A script for `/bin/sh -c`.
        case script(String)
        /// A program and its arguments, run without a shell.
        case argv([String])
    }

    public var command: Command
    /// The working directory, relative to the workflow file.
    public var cwd: String?
    public var environment: [(name: String, value: String)]
    /// Wired inputs, each given to the command as an environment variable of that name.
    public var inputs: [(name: String, wire: Wire)]
    public var output: OutputFormat
}

/// An HTTP request.
public struct HTTP: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    /// A body given in the file; a JSON object or array is sent as JSON.
    public var body: JSONValue?
    /// The status codes that count as success; empty for 200–299.
    public var expect: [Int]
    public var output: OutputFormat
}

/// A file transform. Paths are relative to the workflow file; every write is atomic.
public enum FileOperation: Sendable {
    /// Reads a file as text or JSON.
    case read(path: String, format: OutputFormat)
    /// Writes `content`, or the step's input, to a file.
    case write(path: String, content: String?)
    /// Copies a file.
    case copy(source: String, destination: String)
    /// Fills `{{name}}` placeholders of a template (a file, or inline text) with the fields of
    /// the JSON object input and the workflow's variables; writes the result if `path` is set.
    case render(template: Template, path: String?)
    /// Takes the part of the JSON input at a JSON Pointer.
    case select(pointer: JSONPointer)
    /// Replaces every occurrence of a text in the text input.
    case replace(find: String, replacement: String)
    /// Joins files, in order; writes the result if `path` is set.
    case concat(paths: [String], path: String?)

    public enum Template: Sendable {
        case file(String)
        case text(String)
    }

    /// The operation's name in the file.
    public var name: String {
        switch self {
        case .read: return "read"
        case .write: return "write"
        case .copy: return "copy"
        case .render: return "render"
        case .select: return "select"
        case .replace: return "replace"
        case .concat: return "concat"
        }
    }

    public var outputFormat: OutputFormat {
        switch self {
        case .read(_, let format): return format
        case .write, .copy: return .none
        case .render, .replace, .concat: return .text
        case .select: return .json
        }
    }
}

/// Nested steps, run as one, with an input and an output bound to children.
public struct Group: Sendable {
    public var steps: [Step]
    /// The child the group's input is forwarded to.
    public var inputTo: Reference?
    /// The child whose output becomes the group's.
    public var outputFrom: Reference?
    public var maxConcurrency: Int?
}

/// Runs one of several sets of steps, chosen by another step's output when it finishes.
public struct Branch: Sendable {
    public var on: Wire
    public var cases: [Case]
    /// The steps to run when no case matches.
    public var otherwise: [Step]

    public struct Case: Sendable {
        /// The value the output must equal (a typed JSON comparison).
        public var equals: JSONValue
        public var steps: [Step]
    }
}

/// When a step runs.
public indirect enum StepCondition: Sendable {
    /// An environment variable is set (and not empty), or equals a value.
    case environment(name: String, equals: String?)
    /// A file or directory exists, relative to the workflow file.
    case exists(path: String)
    /// A command, run by `/bin/sh -c`, exits with status 0.
    case command(String)
    /// A wired output equals a JSON value.
    case output(Wire, equals: JSONValue)
    case not(StepCondition)
    case all([StepCondition])
    case any([StepCondition])

    /// The wires the condition reads, each implying a dependency.
    public var wires: [Wire] {
        switch self {
        case .output(let wire, _): return [wire]
        case .not(let condition): return condition.wires
        case .all(let conditions), .any(let conditions): return conditions.flatMap(\.wires)
        case .environment, .exists, .command: return []
        }
    }
}

/// How often to try a failing step, and how long to wait in between.
public struct Retry: Sendable {
    public enum Backoff: String, Sendable, CaseIterable {
        case constant, linear, exponential
    }

    /// Attempts in all, the first included.
    public var attempts: Int
    public var backoff: Backoff
    /// Seconds before the first retry.
    public var delay: Double
    /// The longest wait, in seconds.
    public var maxDelay: Double?
    /// A fraction (0 to 1) by which each wait is shortened at random.
    public var jitter: Double
}

extension Step {
    /// How many wires the step reads, without listing them.
    var wireCount: Int {
        var count = (input == nil ? 0 : 1) + (when?.wires.count ?? 0)
        if case .shell(let shell) = kind { count += shell.inputs.count }
        if case .branch = kind { count += 1 }
        return count
    }

    /// Every wire the step reads: its input, a shell step's named inputs, a branch's `on`,
    /// its condition's.
    public var wires: [(wire: Wire, role: WireRole)] {
        var wires: [(Wire, WireRole)] = []
        if let input { wires.append((input, .input)) }
        if case .shell(let shell) = kind {
            wires += shell.inputs.map { ($0.wire, .environment($0.name)) }
        }
        if case .branch(let branch) = kind { wires.append((branch.on, .branch)) }
        if let when { wires += when.wires.map { ($0, .condition) } }
        return wires
    }
}

/// What a wire is for.
public enum WireRole: Sendable, Equatable {
    case input
    case environment(String)
    case branch
    case condition
}

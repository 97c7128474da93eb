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

    /// The texts of the condition that an instance of a `forEach` fills its item into: what
    /// an `env` test compares with, and an `exists` test's path.
    var itemTexts: [String] {
        switch self {
        case .environment(_, let equals): return equals.map { [$0] } ?? []
        case .exists(let path): return [path]
        case .not(let condition): return condition.itemTexts
        case .all(let conditions), .any(let conditions): return conditions.flatMap(\.itemTexts)
        case .command, .output: return []
        }
    }
}

/// How a step's `when` is exported: decided at export when it reads only environment
/// variables, or left to a pod when it reads files, commands or outputs.
enum ConditionPlan {
    /// No condition, or one that holds here.
    case always
    /// A condition that does not hold here: the step is skipped.
    case never
    /// A condition a pod decides when the step is due.
    case decidedInPod(StepCondition)

    /// The plan for `condition`, deciding `env` conditions in `environment`.
    init(_ condition: StepCondition?, environment: [String: String]) {
        guard let condition else {
            self = .always
            return
        }
        if let holds = Self.decide(condition, in: environment) {
            self = holds ? .always : .never
        } else {
            self = .decidedInPod(condition)
        }
    }

    /// The condition's value if it reads only environment variables, as procflow decides it.
    static func decide(_ condition: StepCondition, in environment: [String: String]) -> Bool? {
        switch condition {
        case .environment(let name, let equals):
            return holds(name: name, equals: equals, in: environment)
        case .exists, .command, .output:
            return nil
        case .not(let inner):
            return decide(inner, in: environment).map { !$0 }
        case .all(let parts):
            let values = parts.map { decide($0, in: environment) }
            return values.contains(nil) ? nil : values.allSatisfy { $0 == true }
        case .any(let parts):
            let values = parts.map { decide($0, in: environment) }
            return values.contains(nil) ? nil : values.contains(true)
        }
    }

    /// Whether the variable `name` is set and not empty, or equals `equals`.
    static func holds(name: String, equals: String?, in environment: [String: String]) -> Bool {
        let value = environment[name]
        return equals.map { value == $0 } ?? !(value ?? "").isEmpty
    }
}

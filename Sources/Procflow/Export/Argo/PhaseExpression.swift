/// A test of the phases Argo gives finished tasks: written as a DAG task's `depends`
/// (`fetch.Succeeded || fetch.Skipped`), or, for tasks of an enclosing DAG whose statuses were
/// passed in as parameters, as a `when` over those statuses.
indirect enum PhaseExpression: Equatable {
    /// The phases a finished task can have, as far as `depends` can tell them apart.
    enum Phase: CaseIterable {
        case succeeded, failed, errored, skipped, omitted

        /// How `depends` names it: `Errored` for the `Error` phase.
        var dependsName: String {
            switch self {
            case .succeeded: return "Succeeded"
            case .failed: return "Failed"
            case .errored: return "Errored"
            case .skipped: return "Skipped"
            case .omitted: return "Omitted"
            }
        }

        /// The phase as `{{tasks.NAME.status}}` gives it.
        var status: String {
            self == .errored ? "Error" : dependsName
        }
    }

    case phase(String, Phase)
    case all([PhaseExpression])
    case any([PhaseExpression])

    /// The task has finished, whatever its phase.
    static func finished(_ task: String) -> PhaseExpression {
        .any(Phase.allCases.map { .phase(task, $0) })
    }

    /// `parts` joined by "and", or the one part, or `nil` for none.
    static func conjunction(_ parts: [PhaseExpression]) -> PhaseExpression? {
        parts.count > 1 ? .all(parts) : parts.first
    }

    /// The expression as `depends` reads it.
    var depends: String {
        render { task, phase in "\(task).\(phase.dependsName)" }
    }

    /// The expression as a `when` reads it, with each task's status given by the tag
    /// `tag(task)` names: `'{{inputs.parameters.a--status}}' == 'Succeeded'`, or
    /// `{{tasks.a.status}}` in the task's own DAG. Statuses are Argo's own words, so nothing
    /// but them is ever spliced into the expression.
    func when(tag: (String) -> String) -> String {
        render { task, phase in "'\(tag(task))' == '\(phase.status)'" }
    }

    private func render(_ atom: (String, Phase) -> String) -> String {
        switch self {
        case .phase(let task, let phase):
            return atom(task, phase)
        case .all(let parts):
            return parts.map { $0.rendered(inside: "&&", atom) }.joined(separator: " && ")
        case .any(let parts):
            return parts.map { $0.rendered(inside: "||", atom) }.joined(separator: " || ")
        }
    }

    /// The expression as a part of an `operation` list, in parentheses where it needs them.
    private func rendered(inside operation: String, _ atom: (String, Phase) -> String) -> String {
        switch self {
        case .all(let parts) where parts.count > 1 && operation == "||":
            return "(" + render(atom) + ")"
        case .any(let parts) where parts.count > 1 && operation == "&&":
            return "(" + render(atom) + ")"
        default:
            return render(atom)
        }
    }
}

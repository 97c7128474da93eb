extension Step {
    /// The step with its id, and every id it mentions (dependencies, wires, bindings, those
    /// of the steps it holds), passed through `rename`: how an included file's steps join the
    /// workflow under its prefix.
    func renamed(_ rename: (String) -> String) -> Step {
        mapped { original in
            var step = original
            step.id = rename(step.id)
            step.dependsOn = step.dependsOn.map { $0.renamed(rename) }
            step.input = step.input?.renamed(rename)
            step.when = step.when?.renamed(rename)
            switch step.kind {
            case .shell(var shell):
                shell.inputs = shell.inputs.map { ($0.name, $0.wire.renamed(rename)) }
                step.kind = .shell(shell)
            case .group(var group):
                group.inputTo = group.inputTo?.renamed(rename)
                group.outputFrom = group.outputFrom?.renamed(rename)
                step.kind = .group(group)
            case .branch(var branch):
                branch.on = branch.on.renamed(rename)
                step.kind = .branch(branch)
            case .http, .file:
                break
            }
            return step
        }
    }
}

extension Reference {
    /// The same mention of `rename(id)`.
    func renamed(_ rename: (String) -> String) -> Reference {
        var reference = self
        reference.id = rename(id)
        return reference
    }
}

extension Wire {
    /// The same wire from `rename(from.id)`.
    func renamed(_ rename: (String) -> String) -> Wire {
        var wire = self
        wire.from = from.renamed(rename)
        return wire
    }
}

extension StepCondition {
    /// The same condition with the steps its wires read passed through `rename`.
    func renamed(_ rename: (String) -> String) -> StepCondition {
        switch self {
        case .output(let wire, let equals): return .output(wire.renamed(rename), equals: equals)
        case .not(let inner): return .not(inner.renamed(rename))
        case .all(let parts): return .all(parts.map { $0.renamed(rename) })
        case .any(let parts): return .any(parts.map { $0.renamed(rename) })
        case .environment, .exists, .command: return self
        }
    }
}

extension Step.Kind {
    /// The kind with each list of steps it holds — a group's, each case's of a branch and its
    /// `otherwise` — passed through `transform`: the one place that rebuilds the step tree.
    func mappingLists<E: Error>(_ transform: ([Step]) throws(E) -> [Step]) throws(E) -> Self {
        switch self {
        case .group(var group):
            group.steps = try transform(group.steps)
            return .group(group)
        case .branch(var branch):
            for index in branch.cases.indices {
                branch.cases[index].steps = try transform(branch.cases[index].steps)
            }
            branch.otherwise = try transform(branch.otherwise)
            return .branch(branch)
        case .shell, .http, .file:
            return self
        }
    }
}

extension Step {
    /// The step and every step it holds, each passed through `transform`, a step before what
    /// it holds (so `transform` sees its children as they were). Recursion is bounded by the
    /// parser's nesting limit.
    func mapped<E: Error>(_ transform: (Step) throws(E) -> Step) throws(E) -> Step {
        var step = try transform(self)
        step.kind = try step.kind.mappingLists { (list) throws(E) in
            var mapped: [Step] = []
            for child in list { mapped.append(try child.mapped(transform)) }
            return mapped
        }
        return step
    }
}

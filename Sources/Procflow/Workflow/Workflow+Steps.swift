extension Workflow {
    /// Calls `visit` for every step, depth first in file order, each group or branch before
    /// the steps it holds: the one walk of the step tree.
    public func forEachStep(_ visit: (NestedStep) throws -> Void) rethrows {
        try Self.walk(steps, path: [], cases: [], visit)
    }

    /// Calls `visit` for `list` and everything in it, as ``forEachStep(_:)`` does for the
    /// workflow's steps, each placed under `path` and `cases`. Recursion is bounded by the JSON
    /// parser's nesting limit.
    static func walk(
        _ list: [Step], path: [String], cases: [NestedStep.BranchCase],
        _ visit: (NestedStep) throws -> Void
    ) rethrows {
        for step in list {
            try visit(NestedStep(step: step, path: path, cases: cases))
            // The path inside is made only for a step that holds others.
            switch step.kind {
            case .group(let group):
                try walk(group.steps, path: path + [step.id], cases: cases, visit)
            case .branch(let branch):
                let inside = path + [step.id]
                for (index, branchCase) in branch.cases.enumerated() {
                    let taken = NestedStep.BranchCase(branch: step.id, index: index)
                    try walk(branchCase.steps, path: inside, cases: cases + [taken], visit)
                }
                let otherwise = NestedStep.BranchCase(branch: step.id, index: nil)
                try walk(branch.otherwise, path: inside, cases: cases + [otherwise], visit)
            case .shell, .http, .file:
                break
            }
        }
    }

    /// Every step, depth first, in file order.
    public var allSteps: [Step] {
        var steps: [Step] = []
        forEachStep { steps.append($0.step) }
        return steps
    }

    /// Every step with where it stands, depth first, in file order.
    public var nestedSteps: [NestedStep] {
        var steps: [NestedStep] = []
        forEachStep { steps.append($0) }
        return steps
    }
}

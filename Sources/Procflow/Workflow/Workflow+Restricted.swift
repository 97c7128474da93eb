extension Workflow {
    /// The workflow cut down to the steps `ids`, what they need (transitively: dependencies,
    /// wired sources, and the groups they are in with what those need), and, for a group, all
    /// it holds. Ids of no step are ignored.
    public func restricted(to ids: [String]) -> Workflow {
        var parents: [String: String] = [:]
        var byID: [String: Step] = [:]
        forEachStep { nested in
            byID[nested.step.id] = nested.step
            parents[nested.step.id] = nested.parent
        }
        let targets = Set(ids)
        var needed: Set<String> = []
        var pending = ids
        while let current = pending.popLast() {
            guard needed.insert(current).inserted, let step = byID[current] else { continue }
            pending += step.prerequisites
            if let parent = parents[current] { pending.append(parent) }
            var descendants = step.children
            while targets.contains(current), let descendant = descendants.popLast() {
                pending.append(descendant.id)
                descendants += descendant.children
            }
        }
        var copy = self
        copy.steps = Self.keeping(needed, of: steps)
        return copy
    }

    /// `list` without the steps not in `ids`, inside groups and branches too.
    private static func keeping(_ ids: Set<String>, of list: [Step]) -> [Step] {
        list.filter { ids.contains($0.id) }.map { step in
            var step = step
            switch step.kind {
            case .group(var group):
                group.steps = keeping(ids, of: group.steps)
                step.kind = .group(group)
            case .branch(var branch):
                for index in branch.cases.indices {
                    branch.cases[index].steps = keeping(ids, of: branch.cases[index].steps)
                }
                branch.otherwise = keeping(ids, of: branch.otherwise)
                step.kind = .branch(branch)
            case .shell, .http, .file:
                break
            }
            return step
        }
    }
}

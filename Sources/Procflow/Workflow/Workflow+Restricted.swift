extension Workflow {
    /// The workflow cut down to the steps `ids`, what they need (transitively: dependencies,
    /// wired sources, and the groups they are in with what those need), and, for a group named
    /// or needed (a dependency, a wired source), all it holds: a group that is only the place
    /// of a needed step keeps just what it needs. Ids of no step are ignored.
    public func restricted(to ids: [String]) -> Workflow {
        var parents: [String: String] = [:]
        var byID: [String: Step] = [:]
        forEachStep { nested in
            byID[nested.step.id] = nested.step
            parents[nested.step.id] = nested.parent
        }
        var needed: Set<String> = []
        var whole: Set<String> = []
        var pending = ids.map { (id: $0, isWhole: true) }
        while let (current, isWhole) = pending.popLast() {
            let isNew = needed.insert(current).inserted
            guard let step = byID[current] else { continue }
            if isNew {
                pending += step.prerequisites.map { ($0, true) }
                if let parent = parents[current] { pending.append((parent, false)) }
            }
            // What a group gives comes from its children: all of them run.
            if isWhole, whole.insert(current).inserted {
                pending += step.children.map { ($0.id, true) }
            }
        }
        var copy = self
        copy.steps = Self.keeping(needed, of: steps)
        copy.stepsLeftOut = stepsLeftOut.union(byID.keys).subtracting(needed)
        return copy
    }

    /// `list` without the steps not in `ids`, inside groups and branches too.
    private static func keeping(_ ids: Set<String>, of list: [Step]) -> [Step] {
        list.filter { ids.contains($0.id) }.map { step in
            var step = step
            step.kind = step.kind.mappingLists { keeping(ids, of: $0) }
            return step
        }
    }
}

extension Workflow {
    /// The workflow cut down to the steps `ids`, what they need (transitively: dependencies,
    /// wired sources, and the groups they are in with what those need), and, for a group named
    /// or needed (a dependency, a wired source), all it holds: a group that is only the place
    /// of a needed step keeps just what it needs. An instance of a `forEach` whose items the
    /// file gives (by name, `cc[src/lapi.c]`, or id, `cc[3]`) stands for its step running that
    /// instance alone. Ids of no step are ignored.
    public func restricted(to targets: [String]) -> Workflow {
        var ids: [String] = []
        var instances: [String: Set<Int>] = [:]
        for target in targets {
            if case .instance(let step, let index) = resolveTarget(target) {
                ids.append(step)
                instances[step, default: []].insert(index)
            } else {
                ids.append(target)
            }
        }
        var restricted = restricted(toSteps: ids)
        for (id, indices) in instances where !targets.contains(id) {
            restricted.steps = restricted.steps.map {
                $0.mapped { step in
                    guard step.id == id else { return step }
                    var step = step
                    step.forEach?.only = indices
                    return step
                }
            }
        }
        return restricted
    }

    /// What a target names.
    public enum Target: Equatable {
        /// A step.
        case step
        /// Instance `index` of the `forEach` step `step`.
        case instance(step: String, index: Int)
        /// An instance of a `forEach` step whose items come at run time.
        case instanceOfWiredItems(step: String)
        /// Nothing.
        case unknown
    }

    /// What `target` names: a step's id, or an instance of a `forEach` step by its name or id.
    public func resolveTarget(_ target: String) -> Target {
        // A step's id first: an instance's name never hides a step.
        if allSteps.contains(where: { $0.id == target }) { return .step }
        var found = Target.unknown
        forEachStep { nested in
            guard found == .unknown else { return }
            let step = nested.step
            guard let forEach = step.forEach, target.hasPrefix(step.id) || forEach.name != nil
            else { return }
            guard let items = forEach.staticItems else {
                if target.hasPrefix(step.id + "[") { found = .instanceOfWiredItems(step: step.id) }
                return
            }
            let names = forEach.instanceNames(of: step.id, items: items)
            if let index = names.firstIndex(of: target)
                ?? items.indices.first(where: { ForEach.instanceID(of: step.id, at: $0) == target })
            {
                found = .instance(step: step.id, index: index)
            }
        }
        return found
    }

    private func restricted(toSteps ids: [String]) -> Workflow {
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

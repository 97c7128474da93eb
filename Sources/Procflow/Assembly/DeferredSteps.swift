import ProcedureKit

/// The steps a run builds once every step they wait for has started, rather than all before
/// the run starts; and lets go of once they and the steps that wait for them have ended.
///
/// A run of a hundred thousand steps otherwise holds a procedure for each, with its conditions
/// and observers, from its start to its end: about 3 KiB a step. Built this way, what a run
/// holds at once is the steps under way and those about to be.
///
/// A step is deferred only where that changes nothing a run does or reports
/// (``select(_:nestedSteps:leftOut:settled:atLeast:)``): a step that does work itself,
/// waiting for at least one step, in groups that start with their parent and cannot be
/// skipped, in a run with no service, no `--fail-fast` and no `always` step. Whatever waits
/// for a deferred step is deferred too, so that it is built after the step it wires itself
/// to.
///
/// A group holding deferred steps gets one more child, a ``Hold``, that ends once the last of
/// them has been added: the group cannot finish before all its steps are in it.
///
/// Only a run with many such steps (``worthwhileCount``) builds them as it goes: the
/// bookkeeping costs about 30,000 instructions a step (choosing them, building each on its
/// own, letting go of it), 3 % of a 2,000-step chain of `true` steps, where their procedures
/// built before the run hold a few MiB.
final class DeferredSteps: @unchecked Sendable {
    // @unchecked Sendable: the mutable state lives in `state`, a `Locked` mutex; the rest is
    // constant.

    /// How many steps must be deferrable for a run to defer them: procedures for fewer, built
    /// before the run, hold at most about 15 MiB.
    static let worthwhileCount = 5000

    /// What a run defers: for each deferred step, the steps it waits for.
    struct Selection {
        /// The deferred steps, in file order, each with the place of its prerequisites (those
        /// left out of the run's graph excepted) in ``waitedFor``: a dictionary of lists, and
        /// another of their dependents, were 170 bytes a step at the run's start, where its
        /// memory is highest.
        fileprivate(set) var prerequisites = DenseTable<String, Range<Int32>>()
        /// Every deferred step's prerequisites, one step's after another's.
        fileprivate(set) var waitedFor: [String] = []

        /// The prerequisites of the deferred step at `place` in ``prerequisites``.
        func prerequisites(at place: Int) -> ArraySlice<String> {
            let range = prerequisites[place: place]
            return waitedFor[Int(range.lowerBound)..<Int(range.upperBound)]
        }

        /// Whether the step `id` is deferred.
        func defers(_ id: String) -> Bool {
            prerequisites.place(of: id) != nil
        }

        /// Adds the deferred step `id`, which waits for `waitsFor`.
        fileprivate mutating func add(_ id: String, waitingFor waitsFor: some Collection<String>) {
            let start = Int32(waitedFor.count)
            waitedFor.append(contentsOf: waitsFor)
            prerequisites[id] = start..<Int32(waitedFor.count)
        }

        /// For each step a deferred step waits for, the deferred steps that wait for it, in
        /// file order.
        var dependents: [String: [String]] {
            var dependents: [String: [String]] = [:]
            for (place, id) in prerequisites.keys.enumerated() {
                for prerequisite in prerequisites(at: place) {
                    dependents[prerequisite, default: []].append(id)
                }
            }
            return dependents
        }
    }

    /// A group's child that keeps it from finishing until its deferred steps are all in it.
    final class Hold: Procedure, @unchecked Sendable {
        // @unchecked Sendable: its state lives in `state`, a `Locked` mutex; `group` is
        // constant.
        private let state = Locked((executing: false, released: false))
        /// Its group's place among the groups holding deferred steps.
        fileprivate let group: Int

        fileprivate init(group: Int) {
            self.group = group
            // Cancelled with its group, it still waits: the deferred steps yet to come are
            // added, cancelled, and report so.
            super.init(disableAutomaticFinishing: true)
            name = "deferred steps"
        }

        override func execute() {
            let released = state.withLock { state in
                state.executing = true
                return state.released
            }
            if released { finish() }
        }

        /// The last deferred step is in the group.
        func release() {
            let executing = state.withLock { state in
                state.released = true
                return state.executing
            }
            if executing { finish() }
        }
    }

    private struct Group {
        let hold: Hold
        var procedure: StepGroupProcedure?
        var pending: Int
    }

    /// What changes as the run goes, by step number (see ``numbers``). Arrays, not tables by
    /// id: at 100,000 steps five tables by id held about 40 MB to the run's end, where its
    /// memory is highest (a table keeps its room as entries go).
    private struct State {
        /// Deferred steps not built yet: how many of their prerequisites have not started; 0
        /// for any other step.
        var waiting: [Int32]
        /// Deferred steps not let go of yet: the deferred steps that wait for each (built or
        /// not) and have not ended, plus one while it has not ended itself; 0 for any other.
        var holders: [Int32]
        /// Whether each step has started (its dependents are no longer its to build).
        var reached: [Bool]
        /// Whether each step has ended (its held prerequisites are no longer its to hold).
        var ended: [Bool]
        /// Each deferred step's group, as an index in `groups`, until it is built; -1 then,
        /// and for any other step.
        var group: [Int32]
        var groups: [Group] = []
        /// Whether each deferred step's procedure has been let go of: 0 if not, 1 if it had
        /// not made its work (an incremental step found up to date as the run went), 2 if
        /// it had.
        var forgotten: [UInt8]
    }

    /// A number for each step deferred or waited for by one, from 0: its place in the table,
    /// whose keys are the ids of those numbers. A dictionary held 17 MB at 100,000 steps, to
    /// the run's end.
    private let numbers: DenseTable<String, Void>
    /// For each step deferred steps wait for, those steps, in file order.
    private let dependents: NumberLists
    /// Each deferred step's prerequisites that are deferred too.
    private let heldPrerequisites: NumberLists
    private let state: Locked<State>
    private let build: @Sendable ([String]) -> Void
    private let forget: @Sendable (String) -> Bool?

    /// - Parameters:
    ///   - selection: the steps deferred and what they wait for.
    ///   - build: builds and wires the steps named, once each: their procedures go to
    ///     ``add(_:for:)``.
    ///   - forget: lets go of a deferred step's procedure, which nothing needs any more;
    ///     tells whether it had made its work, `nil` if there was none.
    init(
        _ selection: Selection, build: @escaping @Sendable ([String]) -> Void,
        forget: @escaping @Sendable (String) -> Bool?
    ) {
        // The deferred steps first, numbered by their places in the selection's table, then
        // the steps they wait for that are not deferred.
        var numbers = selection.prerequisites.mapValues { _ in () }
        for prerequisite in selection.waitedFor where numbers.place(of: prerequisite) == nil {
            numbers[prerequisite] = ()
        }
        let count = numbers.count
        func number(_ id: String) -> Int32 { Int32(numbers.place(of: id)!) }
        var state = State(
            waiting: Array(repeating: 0, count: count), holders: Array(repeating: 0, count: count),
            reached: Array(repeating: false, count: count),
            ended: Array(repeating: false, count: count),
            group: Array(repeating: -1, count: count), forgotten: Array(repeating: 0, count: count))
        for step in 0..<selection.prerequisites.count {
            let prerequisites = selection.prerequisites(at: step)
            state.waiting[step] = Int32(prerequisites.count)
            state.holders[step] += 1
            for prerequisite in prerequisites where selection.defers(prerequisite) {
                state.holders[Int(number(prerequisite))] += 1
            }
        }
        // Each list in file order: the deferred steps come in it.
        dependents = NumberLists(count: count) { pair in
            for step in 0..<selection.prerequisites.count {
                for prerequisite in selection.prerequisites(at: step) {
                    pair(number(prerequisite), Int32(step))
                }
            }
        }
        heldPrerequisites = NumberLists(count: count) { pair in
            for step in 0..<selection.prerequisites.count {
                for prerequisite in selection.prerequisites(at: step)
                where selection.defers(prerequisite) {
                    pair(Int32(step), number(prerequisite))
                }
            }
        }
        self.numbers = numbers
        self.state = Locked(state)
        self.build = build
        self.forget = forget
    }

    /// The number of the step `id`, if it is deferred or waited for by one.
    private func number(of id: String) -> Int32? {
        numbers.place(of: id).map(Int32.init)
    }

    /// The id of the step numbered `step`.
    private func id(_ step: Int32) -> String {
        numbers.keys[Int(step)]
    }

    /// Whether the step `id` is built once its prerequisites have started.
    func defers(_ id: String) -> Bool {
        guard let step = number(of: id) else { return false }
        return state.withLock { $0.waiting[Int(step)] > 0 }
    }

    /// Whether the step `id` must tell when it starts and ends: it is deferred, or a deferred
    /// step waits for it.
    func follows(_ id: String) -> Bool {
        guard let step = number(of: id) else { return false }
        let waitedFor = !dependents[step].isEmpty
        return state.withLock {
            $0.holders[Int(step)] > 0 || (waitedFor && !$0.reached[Int(step)])
        }
    }

    /// The hold of a group of `steps`, if some are deferred; ``attach(_:to:)`` names the group.
    func hold(for steps: [Step]) -> Hold? {
        let numbered = steps.compactMap { number(of: $0.id) }
        return state.withLock { state in
            let deferred = numbered.filter { state.waiting[Int($0)] > 0 }
            guard !deferred.isEmpty else { return nil }
            let hold = Hold(group: state.groups.count)
            for step in deferred { state.group[Int(step)] = Int32(hold.group) }
            state.groups.append(Group(hold: hold, procedure: nil, pending: deferred.count))
            return hold
        }
    }

    /// Names the group whose hold `hold` is.
    func attach(_ group: StepGroupProcedure, to hold: Hold) {
        state.withLock { $0.groups[hold.group].procedure = group }
    }

    /// The step `id` has started (its `execute` has returned: a command has been spawned), or
    /// ended without starting: the deferred steps that waited only for it and others already
    /// started are built, here, while its command runs.
    ///
    /// Built on this thread, not handed to another: a 2,000-step chain ran 5 % slower with
    /// each step built on a queue of its own (the thread switch and its caches).
    func reached(_ id: String) {
        guard let step = number(of: id) else { return }
        let waiting = dependents[step]
        guard !waiting.isEmpty else { return }
        let ready = state.withLock { state -> [String] in
            guard !state.reached[Int(step)] else { return [] }
            state.reached[Int(step)] = true
            return waiting.compactMap { state.waiting.countDown($0) ? self.id($0) : nil }
        }
        guard !ready.isEmpty else { return }
        build(ready)
    }

    /// Adds the procedure built for the deferred step `id` to its group; `nil` if none could
    /// be built (its group is not held open for it).
    func add(_ procedure: Procedure?, for id: String) {
        guard let step = number(of: id) else { return }
        let group = state.withLock { state -> Int? in
            let group = state.group[Int(step)]
            state.group[Int(step)] = -1
            return group < 0 ? nil : Int(group)
        }
        guard let group else { return }
        if let procedure, let parent = state.withLock({ $0.groups[group].procedure }) {
            parent.addChild(procedure)
        }
        // Counted once the step is in: the group's last deferred step, added on another
        // thread, cannot end the hold while this one is on its way.
        let (pending, hold) = state.withLock { state in
            state.groups[group].pending -= 1
            return (state.groups[group].pending, state.groups[group].hold)
        }
        if pending == 0 { hold.release() }
    }

    /// The step `id` has ended: the deferred steps nothing needs any more are let go of.
    func ended(_ id: String) {
        guard let step = number(of: id) else { return }
        let gone = state.withLock { state -> [Int32] in
            guard state.holders[Int(step)] > 0 else { return [] }
            var held = [step]
            if !state.ended[Int(step)] {
                state.ended[Int(step)] = true
                held += heldPrerequisites[step]
            }
            return held.filter { state.holders.countDown($0) }
        }
        for step in gone {
            guard let madeWork = forget(self.id(step)) else { continue }
            state.withLock { $0.forgotten[Int(step)] = madeWork ? 2 : 1 }
        }
    }

    /// Whether the deferred step `id`, let go of, had made its work: `nil` if it has not been
    /// let go of.
    func forgotten(_ id: String) -> Bool? {
        guard let step = number(of: id) else { return nil }
        let forgotten = state.withLock { $0.forgotten[Int(step)] }
        return forgotten == 0 ? nil : forgotten == 2
    }

    /// Which of `workflow`'s steps a run defers, `nestedSteps` being its steps; `nil` for
    /// none.
    ///
    /// - Parameters:
    ///   - leftOut: the steps the run builds nothing for (up to date, their output taken by
    ///     nothing): what waits for them waits for nothing.
    ///   - settled: the steps found up to date before the run, which stand settled.
    ///   - atLeast: how many steps must be deferrable: `nil` below.
    static func select(
        _ workflow: Workflow, nestedSteps: [NestedStep], leftOut: Set<String>,
        settled: [String: SettledStep], atLeast: Int = worthwhileCount
    ) -> Selection? {
        // A step is deferred only if it waits for one: there must be more steps than that.
        if nestedSteps.count <= atLeast
            || nestedSteps.contains(where: { $0.step.service != nil || $0.step.always })
        {
            return nil
        }
        let forEachSteps = Set(nestedSteps.lazy.filter { $0.step.forEach != nil }.map(\.step.id))
        var groups: [String: Step] = [:]
        for nested in nestedSteps where !nested.step.kind.isLeaf {
            groups[nested.step.id] = nested.step
        }
        // The steps built before the run: not in a branch's case, nor made for a forEach's
        // items.
        func isBuiltFirst(_ nested: NestedStep) -> Bool {
            nested.cases.isEmpty
                && (forEachSteps.isEmpty || !nested.path.contains(where: forEachSteps.contains))
        }
        var builtFirst = Set<String>(minimumCapacity: nestedSteps.count)
        for nested in nestedSteps where isBuiltFirst(nested) { builtFirst.insert(nested.step.id) }
        // The groups whose steps may be deferred: they start as their parent does, cannot be
        // skipped or time out, and take no input and give no output from a deferred step.
        func startsWithItsParent(_ group: Step) -> Bool {
            guard case .group(let content) = group.kind else { return false }
            return content.maxConcurrency == nil && group.forEach == nil
                && group.prerequisites.isEmpty && group.when == nil && group.timeout == nil
                && group.mutex.isEmpty && group.retry == nil
        }
        var boundInGroups = Set<String>()
        for group in groups.values {
            guard case .group(let content) = group.kind else { continue }
            if let inputTo = content.inputTo { boundInGroups.insert(inputTo.id) }
            if let outputFrom = content.outputFrom { boundInGroups.insert(outputFrom.id) }
        }
        // In file order: steps ready at once are built, and so queued, in the order the file
        // gives them, as they are when built before the run.
        var candidates = Selection()
        for nested in nestedSteps where isBuiltFirst(nested) {
            let step = nested.step
            guard step.kind.isLeaf, step.forEach == nil, !leftOut.contains(step.id),
                settled[step.id] == nil, !boundInGroups.contains(step.id),
                nested.path.allSatisfy({ groups[$0].map(startsWithItsParent) ?? false })
            else { continue }
            let waitsFor = step.prerequisites.lazy.filter { !leftOut.contains($0) }
            guard !waitsFor.isEmpty, waitsFor.allSatisfy(builtFirst.contains) else { continue }
            candidates.add(step.id, waitingFor: waitsFor)
        }
        guard !candidates.prerequisites.isEmpty else { return nil }
        // What waits for a deferred step is built after it: a step built before the run that
        // waits for one would find nothing to wire to. So neither it nor what it waits for,
        // and so on, is deferred.
        var undeferred: [String] = []
        for nested in nestedSteps where !candidates.defers(nested.step.id) {
            for id in nested.step.prerequisites where candidates.defers(id) {
                undeferred.append(id)
            }
        }
        var kept = [Bool](repeating: true, count: candidates.prerequisites.count)
        while let id = undeferred.popLast() {
            guard let place = candidates.prerequisites.place(of: id), kept[place] else { continue }
            kept[place] = false
            for prerequisite in candidates.prerequisites(at: place) {
                if let other = candidates.prerequisites.place(of: prerequisite), kept[other] {
                    undeferred.append(prerequisite)
                }
            }
        }
        let keptCount = kept.count { $0 }
        guard keptCount > 0, keptCount >= atLeast else { return nil }
        guard keptCount < kept.count else { return candidates }
        var selection = Selection()
        for (place, id) in candidates.prerequisites.keys.enumerated() where kept[place] {
            selection.add(id, waitingFor: candidates.prerequisites(at: place))
        }
        return selection
    }
}

extension [Int32] {
    /// Takes one from the count of step `step`; true when that was its last.
    fileprivate mutating func countDown(_ step: Int32) -> Bool {
        let count = self[Int(step)]
        guard count > 0 else { return false }
        self[Int(step)] = count - 1
        return count == 1
    }
}

/// A list of step numbers for each step number, in one array: what a table of arrays by id
/// holds, without an array (and a bucket) a step.
private struct NumberLists: Sendable {
    /// Where each number's list starts in `items`; one more at the end.
    private let starts: [Int32]
    private let items: [Int32]

    /// The lists of `count` numbers, from the pairs (number, item) `pairs` gives its body, in
    /// the same order each time it is called (twice: to count, then to place): each list in
    /// the order its items came.
    init(count: Int, pairs: ((Int32, Int32) -> Void) -> Void) {
        var starts = [Int32](repeating: 0, count: count + 1)
        pairs { owner, _ in starts[Int(owner) + 1] += 1 }
        for number in 0..<count { starts[number + 1] += starts[number] }
        var next = starts
        var items = [Int32](repeating: 0, count: Int(starts[count]))
        pairs { owner, item in
            items[Int(next[Int(owner)])] = item
            next[Int(owner)] += 1
        }
        self.starts = starts
        self.items = items
    }

    /// The list of `number`.
    subscript(number: Int32) -> ArraySlice<Int32> {
        items[Int(starts[Int(number)])..<Int(starts[Int(number) + 1])]
    }
}

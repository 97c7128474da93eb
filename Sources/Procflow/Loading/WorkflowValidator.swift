/// Checks what the shape of a workflow cannot: that ids are unique, that references name
/// procedures that exist and can be reached, that wiring can work, that variables exist, and
/// that dependencies have no cycle.
struct WorkflowValidator {
    private let workflow: Workflow
    private let report: DecodingContext

    /// Everything known about one step for checking references.
    struct StepInfo {
        let step: Step
        /// The position of the group or branch the step is in.
        let parent: Int?
        /// The branch cases the step is inside, outermost first.
        let cases: [NestedStep.BranchCase]
        let wires: [(wire: Wire, role: WireRole)]
    }

    /// Every step, in file order (depth first), and where each id is in that list.
    private var infos: [StepInfo] = []
    private var positions: [String: Int] = [:]
    /// Every step id, for hints about unknown ones; set once the steps are indexed.
    private var stepIDs = SuggestionIndex([])

    init(workflow: Workflow, report: DecodingContext) {
        self.workflow = workflow
        self.report = report
        positions.reserveCapacity(report.declaredIDs.count)
        infos.reserveCapacity(report.declaredIDs.count)
    }

    mutating func validate() {
        index()
        stepIDs = SuggestionIndex(infos.map(\.step.id))
        let instancesFit = checkInstanceTotal()
        for position in infos.indices { check(infos[position], makingInstances: instancesFit) }
        checkGeneratedFiles()
        checkServices()
        checkCycles()
    }

    // MARK: - Ids

    private mutating func index() {
        // Duplicate ids were reported, and dropped, by the decoder.
        workflow.forEachStep { nested in
            positions[nested.step.id] = infos.count
            infos.append(
                StepInfo(
                    step: nested.step, parent: nested.parent.flatMap { positions[$0] },
                    cases: nested.cases, wires: nested.step.wires))
        }
    }

    // MARK: - References and wiring

    /// Checks the step `info` says; its instances, if it is a `forEach`, only if
    /// `makingInstances`.
    private func check(_ info: StepInfo, makingInstances: Bool) {
        let step = info.step
        for reference in step.dependsOn {
            _ = resolve(reference, from: info, what: "depend on")
        }
        for (wire, role) in info.wires {
            guard let source = resolve(wire.from, from: info, what: "take data from") else {
                continue
            }
            checkWire(wire, source: source.step)
            if source.step.service != nil {
                report.error(
                    "\"\(source.step.id)\" is a service and gives no output: name it in \"dependsOn\" instead",
                    at: wire.from.offset, wire.from.pointer)
            }
            if role == .forEach, source.step.outputFormat == .text, wire.select == nil {
                report.error(
                    "a forEach takes its items from a JSON list, and \"\(source.step.id)\" gives text\(source.step.canGiveJSON ? " (set \"output\": \"json\" on it)" : "")",
                    at: wire.from.offset, wire.from.pointer)
            }
        }
        checkInput(of: info)
        if makingInstances, let forEach = step.forEach { checkInstances(of: step, forEach) }
        if step.always, step.caching.isIncremental {
            report.error(
                "an \"always\" procedure runs every time, so it cannot be incremental: drop \"always\", or its \"sources\", \"generates\", \"depfile\" and \"cache\"",
                at: step.offset, step.pointer.appending("always"))
        }
        if step.retry != nil, step.isContainer {
            report.error(
                "retry applies to shell, http and file procedures, not to a \(step.kind.name): retry its children",
                at: step.offset, step.pointer.appending("retry"))
        }
        switch step.kind {
        case .group(let group):
            checkBinding(group.inputTo, in: step, group: group, isInput: true)
            checkBinding(group.outputFrom, in: step, group: group, isInput: false)
        default:
            break
        }
    }

    /// Finds the step `reference` names, reporting unknown ids, self references and steps
    /// that may never run (inside a branch case the referrer is not in).
    private func resolve(_ reference: Reference, from info: StepInfo, what: String) -> StepInfo? {
        guard let target = positions[reference.id].map({ infos[$0] }) else {
            guard report.declaredIDs[reference.id] == nil else { return nil }
            report.error(
                "unknown procedure \"\(reference.id)\"\(stepIDs.hint(for: reference.id))",
                at: reference.offset, reference.pointer)
            return nil
        }
        if target.step.id == info.step.id {
            report.error(
                "\"\(info.step.id)\" cannot \(what) itself", at: reference.offset,
                reference.pointer)
            return nil
        }
        if let branchCase = target.cases.last, !info.cases.contains(branchCase) {
            let branch = branchCase.branch
            report.error(
                "\"\(reference.id)\" runs only if branch \"\(branch)\" takes its case, so \"\(info.step.id)\" cannot \(what) it; \(what) \"\(branch)\" instead",
                at: reference.offset, reference.pointer)
            return nil
        }
        return target
    }

    private func checkWire(_ wire: Wire, source: Step) {
        let format = source.outputFormat
        guard format != .none else {
            let fix: String
            switch source.kind {
            case .shell, .http: fix = ": set \"output\" on it to \"text\" or \"json\""
            case .group: fix = ": set \"outputFrom\" on it to the child whose output it gives"
            default: fix = ""
            }
            report.error(
                "\"\(source.id)\" has no output to take\(fix)", at: wire.from.offset,
                wire.from.pointer)
            return
        }
        if let select = wire.select, !select.isRoot, format != .json {
            report.error(
                "cannot select \(select) from \"\(source.id)\": its output is text, not JSON\(source.canGiveJSON ? " (set \"output\": \"json\" on it)" : "")",
                at: wire.offset, wire.pointer.appending("select"))
        }
    }

    /// Checks that a step that needs an input has one, and that one that takes none has none.
    private func checkInput(of info: StepInfo) {
        let step = info.step
        let receivesFromGroup =
            info.parent.map { infos[$0].step.forwardsInput(to: step.id) } ?? false
        let hasInput = step.input != nil || receivesFromGroup
        if step.input != nil, receivesFromGroup {
            report.error(
                "\"\(step.id)\" receives the input of its group \"\(infos[info.parent!].step.id)\", so it cannot have its own \"input\"",
                at: step.offset, step.pointer.appending("input"))
        }
        switch step.kind {
        case .file(let operation):
            checkFileInput(of: step, operation, hasInput: hasInput)
        case .http(let http):
            if http.body != nil, let input = step.input {
                report.error(
                    "give the request body either as \"body\" or as an \"input\", not both",
                    at: input.offset, input.pointer)
            }
        case .group(let group):
            if let input = step.input, group.inputTo == nil {
                report.error(
                    "the group has an \"input\" but no \"inputTo\" child to forward it to",
                    at: input.offset, input.pointer)
            }
            if group.inputTo != nil, step.input == nil, !receivesFromGroup {
                report.error(
                    "the group forwards its input to \"\(group.inputTo!.id)\" but has no \"input\"",
                    at: step.offset, step.pointer.appending("inputTo"))
            }
        case .branch:
            refuseInput(of: step, "a branch (it reads \"on\")")
        case .shell:
            break
        }
    }

    /// Checks the input of a file step: which operations need one, and which take none.
    private func checkFileInput(of step: Step, _ operation: FileOperation, hasInput: Bool) {
        switch operation {
        case .write(_, let content):
            if content != nil, let input = step.input {
                report.error(
                    "give the file's content either as \"content\" or as an \"input\", not both",
                    at: input.offset, input.pointer)
            } else if content == nil {
                requireInput(of: step, "a file write without \"content\"", hasInput: hasInput)
            }
        case .render: requireInput(of: step, "a render", hasInput: hasInput)
        case .select: requireInput(of: step, "a select", hasInput: hasInput)
        case .replace: requireInput(of: step, "a replace", hasInput: hasInput)
        case .read, .copy, .concat: refuseInput(of: step, "a file \(operation.name)")
        }
    }

    /// Reports that `step`, which is `what`, needs an input, unless it has one.
    private func requireInput(of step: Step, _ what: String, hasInput: Bool) {
        guard !hasInput else { return }
        report.error(
            "\(what) needs an \"input\" wired from another procedure", at: step.offset,
            step.pointer)
    }

    /// Reports the input of `step`, which is `what` and takes none, if it has one.
    private func refuseInput(of step: Step, _ what: String) {
        guard let input = step.input else { return }
        report.error("\(what) takes no input", at: input.offset, input.pointer)
    }

    private func checkBinding(_ reference: Reference?, in step: Step, group: Group, isInput: Bool) {
        guard let reference else { return }
        guard let child = group.steps.first(where: { $0.id == reference.id }) else {
            let known = positions[reference.id] != nil
            report.error(
                known
                    ? "\"\(reference.id)\" is not a procedure of the group \"\(step.id)\": bind a direct child"
                    : "unknown procedure \"\(reference.id)\"\(Suggestion.hint(for: reference.id, in: group.steps.map(\.id)))",
                at: reference.offset, reference.pointer)
            return
        }
        if !isInput, child.outputFormat == .none {
            report.error(
                "\"\(child.id)\" has no output for the group to give", at: reference.offset,
                reference.pointer)
        }
        if isInput, !child.acceptsInput {
            report.error(
                "\"\(child.id)\" takes no input", at: reference.offset, reference.pointer)
        }
    }

    /// Reports the `forEach` at which what the workflow's `forEach` steps make passes a limit:
    /// ``Workflow/maximumInstances`` procedures, each instance counting once for itself and
    /// once for every procedure it holds, or ``Workflow/maximumInstanceText`` bytes of text
    /// filled in. Returns whether they stay within both, so that they may be made to be
    /// checked.
    private func checkInstanceTotal() -> Bool {
        // Each step with those it holds: a step comes after its parent, depth first.
        var sizes = [Int](repeating: 1, count: infos.count)
        for position in infos.indices.reversed() {
            if let parent = infos[position].parent { sizes[parent] += sizes[position] }
        }
        var total = (procedures: 0, text: 0)
        for position in infos.indices {
            guard let forEach = infos[position].step.forEach, let count = forEach.items.count
            else { continue }
            let step = infos[position].step
            let text = step.itemTextSize
            total.procedures = Self.saturating(
                total.procedures, plus: count, times: sizes[position])
            total.text = Self.saturating(total.text, plus: count, times: text)
            let instances = "\(formatCount(count)) instance\(count == 1 ? "" : "s")"
            if total.procedures > Workflow.maximumInstances {
                report.error(
                    "\"\(step.id)\" makes \(instances) of \(plural(sizes[position], "procedure")), which brings the procedures forEach steps make to \(Self.describe(total.procedures)); a workflow's forEach steps make at most \(formatCount(Workflow.maximumInstances))",
                    at: forEach.offset, forEach.pointer)
                return false
            }
            if total.text > Workflow.maximumInstanceText {
                report.error(
                    "\"\(step.id)\" fills its item into \(formatSize(text)) of text for each of its \(instances), which brings the text forEach instances fill in to \(total.text == Int.max ? "more than can be counted" : formatSizeRoundedUp(total.text)); a workflow's forEach instances fill in at most \(formatBytes(Workflow.maximumInstanceText))",
                    at: forEach.offset, forEach.pointer)
                return false
            }
        }
        return true
    }

    /// `total + count × each`, or `Int.max` past it.
    private static func saturating(_ total: Int, plus count: Int, times each: Int) -> Int {
        let (made, overflow) = count.multipliedReportingOverflow(by: each)
        let (sum, overflowed) = total.addingReportingOverflow(made)
        return overflow || overflowed ? Int.max : sum
    }

    /// A count that may have saturated.
    private static func describe(_ count: Int) -> String {
        count == Int.max ? "more than \(formatCount(Int.max))" : formatCount(count)
    }

    /// Makes each instance of a step whose items the file gives, reporting the first item
    /// that lacks a field the step names, or that makes an invalid URL.
    private func checkInstances(of step: Step, _ forEach: ForEach) {
        guard let items = forEach.staticItems else { return }
        for (index, item) in items.enumerated() {
            let instance: Step
            do {
                instance = try step.instance(at: index, item: item)
            } catch {
                report.error(
                    error.description, at: forEach.offset, forEach.pointer)
                return
            }
            if case .http(let http) = instance.kind, !WorkflowDecoder.isHTTPURL(http.url) {
                report.error(
                    "item \(index) makes \"\(http.url)\", which is not an http or https URL",
                    at: forEach.offset, forEach.pointer)
                return
            }
        }
    }

    // MARK: - Generated files

    /// One file a step generates: the path, lexically normalized and relative to the
    /// workflow's directory, and the `generates` entry naming it (`nil` for the file its file
    /// operation writes).
    private struct GeneratedFile {
        let path: String
        let entry: Int?
        /// The path as the file writes it.
        let shown: String
    }

    /// Reports a file that two incremental procedures generate: each would record, store and
    /// put back its own version of it. Procedures in different cases of one branch never run
    /// together, and may; the steps inside a `forEach`, whose paths hold the item, are not
    /// compared.
    private func checkGeneratedFiles() {
        // The first step found making each file; the others, rare (only steps that never run
        // together may share a file), apart, so that most files cost no list.
        var firstMakers: [String: Int] = [:]
        var laterMakers: [String: [Int]] = [:]
        firstMakers.reserveCapacity(infos.count)
        // Reads fields through `infos[position]`: a copy of every step would cost more than
        // the check (this runs for every step).
        for position in infos.indices {
            let files = distinctGeneratedFiles(at: position)
            guard infos[position].step.caching.isIncremental, !infos[position].step.always,
                !isInsideForEach(position)
            else { continue }
            for file in files {
                guard let first = firstMakers[file.path] else {
                    firstMakers[file.path] = position
                    continue
                }
                defer { laterMakers[file.path, default: []].append(position) }
                let others = CollectionOfOne(first) + (laterMakers[file.path] ?? [])
                if let other = others.first(where: { !Self.exclusive(infos[position], infos[$0]) })
                {
                    let step = infos[position].step
                    let (offset, pointer) = location(of: file.entry, in: step)
                    report.error(
                        "\"\(step.id)\" generates \(file.shown), which \"\(infos[other].step.id)\" generates too: one procedure must make each file",
                        at: offset, pointer)
                }
            }
        }
    }

    /// The files the step at `position` generates, each once: its file operation's written
    /// file, then its `generates` entries without wildcards. Reports an entry that names a
    /// file the step generates already: listed twice, or the file its operation writes.
    private func distinctGeneratedFiles(at position: Int) -> [GeneratedFile] {
        let caching = infos[position].step.caching
        var directory = ""
        var written: String?
        var operation = ""
        // Only shell and file procedures generate files.
        switch infos[position].step.kind {
        case .shell(let shell) where !caching.generatedPatterns.isEmpty:
            if let cwd = shell.cwd { directory = cwd + "/" }
        case .file(let fileOperation):
            (written, operation) = (fileOperation.writtenPath, fileOperation.name)
        default:
            return []
        }
        func key(_ path: String) -> String {
            lexicallyNormalized(path.hasPrefix("/") ? path : directory + path)
        }
        // The common case, one entry and no operation, cannot repeat a file.
        if written == nil, caching.generatedPatterns.count == 1 {
            let pattern = caching.generatedPatterns[0]
            guard pattern.isLiteral else { return [] }
            return [GeneratedFile(path: key(pattern.literalPath), entry: 0, shown: pattern.text)]
        }
        var files: [GeneratedFile] =
            written.map { [GeneratedFile(path: key($0), entry: nil, shown: $0)] } ?? []
        // Where each file was first named: by the operation (`nil`) or by an entry.
        var seen: [String: Int?] = written.map { [key($0): nil] } ?? [:]
        for (index, pattern) in caching.generatedPatterns.enumerated() {
            // A pattern with wildcards is compared as written; it names no one file.
            let path = pattern.isLiteral ? key(pattern.literalPath) : "\u{0}" + pattern.text
            guard let first = seen[path] else {
                seen[path] = index
                if pattern.isLiteral {
                    files.append(GeneratedFile(path: path, entry: index, shown: pattern.text))
                }
                continue
            }
            let (offset, pointer) = location(of: index, in: infos[position].step)
            let earlier = first.map { caching.generatedPatterns[$0].text }
            report.error(
                repetition(of: pattern.text, earlier: earlier, operation: operation), at: offset,
                pointer)
        }
        return files
    }

    /// What is wrong with a `generates` entry `text` naming a file the step generates already:
    /// an `earlier` entry, or when that is `nil` the file its file `operation` writes.
    private func repetition(of text: String, earlier: String?, operation: String) -> String {
        guard let earlier else {
            return
                "\(text) is the file this \(operation) procedure writes (its \"path\"), which it generates without being listed: drop it from \"generates\""
        }
        return earlier == text
            ? "\(text) is listed twice in \"generates\""
            : "\(text) is listed twice in \"generates\", the first time as \(earlier)"
    }

    // MARK: - Services

    /// A service is used by some step — one that names it, or a group or branch holding it —
    /// else it would only start and stop; and it runs once (not inside a `forEach`).
    private func checkServices() {
        guard infos.contains(where: { $0.step.service != nil }) else { return }
        let used = Set(infos.flatMap(\.step.prerequisites))
        for position in infos.indices where infos[position].step.service != nil {
            let step = infos[position].step
            var holders = [step.id]
            var parent = infos[position].parent
            while let index = parent {
                holders.append(infos[index].step.id)
                parent = infos[index].parent
            }
            // A forEach on the service itself is the decoder's to report.
            if let parent = infos[position].parent, isInsideForEach(parent) {
                report.error(
                    "service \"\(step.id)\" is inside a forEach: a service runs once, so start it outside and depend on it",
                    at: step.offset, step.pointer.appending("service"))
            }
            if !holders.contains(where: used.contains) {
                report.error(
                    "service \"\(step.id)\" has no dependents: name it in the \"dependsOn\" of the steps that need it running",
                    at: step.offset, step.pointer.appending("service"))
            }
        }
    }

    /// The offset and pointer of `generates` entry `entry` of `step`, or of the step.
    private func location(of entry: Int?, in step: Step) -> (Int, JSONPointer) {
        guard let entry else { return (step.offset, step.pointer) }
        let offsets = step.caching.generatesOffsets
        return (
            entry < offsets.count ? offsets[entry] : step.offset,
            step.pointer.appending("generates").appending(entry)
        )
    }

    /// Whether the step at `position` is inside a `forEach` step (or is one).
    private func isInsideForEach(_ position: Int) -> Bool {
        var current: Int? = position
        while let index = current {
            if infos[index].step.forEach != nil { return true }
            current = infos[index].parent
        }
        return false
    }

    /// Whether two steps are in different cases of one branch: they never run together.
    private static func exclusive(_ first: StepInfo, _ second: StepInfo) -> Bool {
        first.cases.contains { one in
            second.cases.contains { $0.branch == one.branch && $0.index != one.index }
        }
    }

    // MARK: - Cycles

    /// Finds a dependency cycle. A group or branch is two nodes, its start and its end: its
    /// children start after it starts and it ends after they end, so a child that depends on
    /// its own group is a cycle too.
    private func checkCycles() {
        // Node numbers: each step's start, and for containers a second node, its end.
        var start = [Int](repeating: 0, count: infos.count)
        var end = [Int](repeating: 0, count: infos.count)
        var owners: [Int] = []
        for position in infos.indices {
            start[position] = owners.count
            owners.append(position)
            if infos[position].step.isContainer {
                owners.append(position)
            }
            end[position] = owners.count - 1
        }
        // An edge u -> v: v waits for u.
        var edges = Edges(nodes: owners.count)
        for position in infos.indices {
            for id in infos[position].step.prerequisites {
                guard let other = positions[id], other != position else { continue }
                edges.add(from: end[other], to: start[position])
            }
            if let parent = infos[position].parent {
                edges.add(from: start[parent], to: start[position])
                edges.add(from: end[position], to: end[parent])
            }
        }
        guard let cycle = findCycle(Successors(edges)) else { return }
        var path: [Int] = []
        for node in cycle where path.last != owners[node] { path.append(owners[node]) }
        if path.count > 1, path.first == path.last { path.removeLast() }
        let text = (path + [path[0]]).map { infos[$0].step.id }.joined(separator: " -> ")
        let culprit = infos[path[0]].step
        report.error("dependency cycle: \(text)", at: culprit.offset, culprit.pointer)
    }

    /// The edges of the dependency graph, in the order they were added.
    private struct Edges {
        let nodes: Int
        var pairs: [(from: Int, to: Int)] = []

        init(nodes: Int) {
            self.nodes = nodes
        }

        mutating func add(from: Int, to: Int) {
            pairs.append((from, to))
        }
    }

    /// Each node's successors, in the order their edges were added, in two flat lists (a
    /// list per node would be an allocation per step).
    private struct Successors {
        /// The successors of node `u` are `targets[starts[u]..<starts[u + 1]]`.
        let starts: [Int]
        let targets: [Int]

        init(_ edges: Edges) {
            var starts = [Int](repeating: 0, count: edges.nodes + 1)
            for edge in edges.pairs { starts[edge.from + 1] += 1 }
            for node in 0..<edges.nodes { starts[node + 1] += starts[node] }
            var filled = starts
            var targets = [Int](repeating: 0, count: edges.pairs.count)
            for edge in edges.pairs {
                targets[filled[edge.from]] = edge.to
                filled[edge.from] += 1
            }
            self.starts = starts
            self.targets = targets
        }

        var count: Int { starts.count - 1 }
    }

    /// A cycle in the graph, as a list of nodes from one back to itself; iterative DFS.
    private func findCycle(_ successors: Successors) -> [Int]? {
        var state = [UInt8](repeating: 0, count: successors.count)  // 0 new, 1 on stack, 2 done
        var parent = [Int](repeating: -1, count: successors.count)
        for root in 0..<successors.count where state[root] == 0 {
            // `next` is the position in `targets` of the node's next successor to visit.
            var stack: [(node: Int, next: Int)] = [(root, successors.starts[root])]
            state[root] = 1
            while let (node, next) = stack.last {
                if next < successors.starts[node + 1] {
                    stack[stack.count - 1].next += 1
                    let successor = successors.targets[next]
                    if state[successor] == 0 {
                        state[successor] = 1
                        parent[successor] = node
                        stack.append((successor, successors.starts[successor]))
                    } else if state[successor] == 1 {
                        var cycle = [successor]
                        var current = node
                        while current != successor {
                            cycle.append(current)
                            current = parent[current]
                        }
                        cycle.append(successor)
                        return cycle.reversed()
                    }
                } else {
                    state[node] = 2
                    stack.removeLast()
                }
            }
        }
        return nil
    }

}

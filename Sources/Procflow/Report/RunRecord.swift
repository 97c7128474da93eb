import Foundation

/// A run as the file reports show it, recorded from its events: each step's attempts, waits,
/// output and end, with the workflow's structure from its graph. The one place that reads
/// events for the reports: a new event or status is taught here, and in
/// ``StepStatus/presentation``.
struct RunRecord {
    /// One attempt of a step (a group or branch has one: from its start to its end).
    struct Attempt {
        /// Its number, from 1.
        var number: Int
        var started: Date
        var ended: Date?
        /// Why it failed, for an attempt another followed.
        var failure: String?
    }

    /// Something a step waited for, and when.
    struct Wait {
        var kind: StepWait
        var started: Date
        var ended: Date
    }

    /// One step and what became of it.
    struct Step {
        /// The step as the graph knows it: id, kind, description, parent, depth.
        let node: WorkflowGraph.Node
        /// The ids of the groups and branches it is in, outermost first.
        let path: [String]
        var status = StepStatus.pending
        var reason: String?
        /// Why it ran, with `--explain`.
        var explanation: String?
        var started: Date?
        /// When its end was reported.
        var ended: Date?
        var duration: TimeInterval?
        var attempts: [Attempt] = []
        /// How many attempts it may make.
        var maxAttempts = 1
        var waits: [Wait] = []
        var log = StepLog()
        /// The last lines of its stderr, for a failure.
        var stderrTail: [String] = []
        /// The value it gave other steps, as the runner kept it.
        var value: RunSummary.ValuePreview?
        /// What people call it, when not its id: a `forEach` instance named by its item.
        var name: String?

        var id: String { node.id }
        /// Its name, else its id: what reports show.
        var shown: String { name ?? node.id }
    }

    /// The most bytes of output kept for all steps together by default; past it, the output
    /// of steps that end well is let go (failures and warnings keep theirs).
    static let outputBudget = 32 << 20

    let graph: WorkflowGraph
    /// The most bytes of output kept for all steps together.
    let outputBudget: Int
    /// Every step, in file order, depth first.
    private(set) var steps: [Step]
    private var positions: [String: Int]
    private var keptBytes = 0
    /// When the run started, and ended.
    private(set) var started: Date?
    private(set) var finished: Date?
    /// The runner's account of the run, once it has ended.
    private(set) var summary: RunSummary?

    init(graph: WorkflowGraph, outputBudget: Int = Self.outputBudget) {
        self.graph = graph
        self.outputBudget = outputBudget
        var parents: [String: String] = [:]
        for node in graph.nodes { parents[node.id] = node.parent }
        steps = graph.nodes.map { node in
            var path: [String] = []
            var parent = node.parent
            while let id = parent {
                path.insert(id, at: 0)
                parent = parents[id]
            }
            return Step(node: node, path: path)
        }
        positions = Dictionary(graph.nodes.enumerated().map { ($1.id, $0) }) { first, _ in first }
    }

    /// The step `id`.
    subscript(id: String) -> Step? {
        positions[id].map { steps[$0] }
    }

    /// The run's name.
    var name: String { summary?.name ?? graph.name }

    /// How long the run lasted, or has lasted until its last event.
    var duration: TimeInterval {
        summary?.duration ?? (started.map { (finished ?? Date()).timeIntervalSince($0) } ?? 0)
    }

    /// How the run ended: `succeeded`, `failed`, `interrupted`, or `running` before its end.
    var result: String {
        switch summary?.result {
        case .succeeded: return "succeeded"
        case .failed: return "failed"
        case .interrupted: return "interrupted"
        case nil: return "running"
        }
    }

    /// The signal that interrupted the run, by name.
    var signal: String? {
        guard case .interrupted(let signal) = summary?.result else { return nil }
        return SignalName.names[signal] ?? "\(signal)"
    }

    /// Seconds from the run's start to `date`.
    func offset(_ date: Date) -> TimeInterval {
        started.map { max(0, date.timeIntervalSince($0)) } ?? 0
    }

    mutating func record(_ event: RunEvent) {
        let time = event.time
        guard let id = event.step else {
            if case .workflowStarted = event.kind { started = time }
            if case .workflowFinished(let summary) = event.kind { finish(summary, at: time) }
            return
        }
        guard let position = positions[id] ?? added(id, path: event.path) else { return }
        if let name = event.name { steps[position].name = name }
        switch event.kind {
        case .workflowStarted, .workflowInterrupted, .workflowFinished:
            break
        case .stepStarted(let attempt, let total):
            steps[position].status = .running
            if steps[position].started == nil { steps[position].started = time }
            steps[position].maxAttempts = total
            steps[position].attempts.append(Attempt(number: attempt, started: time))
        case .stepOutput(let stream, let lines):
            let before = steps[position].log.keptBytes
            steps[position].log.append(stream, lines)
            keptBytes += steps[position].log.keptBytes - before
        case .stepWaited(let wait, let duration):
            steps[position].waits.append(
                Wait(kind: wait, started: time.addingTimeInterval(-duration), ended: time))
        case .stepRetried(_, _, let reason, _):
            if let last = steps[position].attempts.indices.last {
                steps[position].attempts[last].ended = time
                steps[position].attempts[last].failure = reason
            }
        case .stepSucceeded(let duration, _):
            end(position, .succeeded, reason: nil, duration: duration, at: time)
        case .stepFailed(let reason, let tail, let duration, let tolerated):
            steps[position].stderrTail = tail
            end(
                position, tolerated ? .warning : .failed, reason: reason, duration: duration,
                at: time)
        case .stepSkipped(let reason):
            end(position, .skipped, reason: reason, duration: nil, at: time)
        case .stepCancelled(let reason, let duration):
            end(position, .cancelled, reason: reason, duration: duration, at: time)
        case .stepCached(let note):
            end(position, .cached, reason: note, duration: nil, at: time)
        case .stepExplained(let reason):
            steps[position].explanation = reason
        }
    }

    private mutating func end(
        _ position: Int, _ status: StepStatus, reason: String?, duration: TimeInterval?,
        at time: Date
    ) {
        steps[position].status = status
        steps[position].reason = reason
        steps[position].duration = duration
        steps[position].ended = time
        if let last = steps[position].attempts.indices.last,
            steps[position].attempts[last].ended == nil
        {
            steps[position].attempts[last].ended = time
        }
        if !status.presentation.isProblem, keptBytes > outputBudget {
            keptBytes -= steps[position].log.keptBytes
            steps[position].log.discard()
        }
    }

    /// Takes the summary's statuses and reasons as final: they account for every step.
    /// A step the file does not list — an instance of a `forEach`, made as the run went — placed
    /// for now at the end; `nil` for an event of no step the run knows.
    private mutating func added(_ id: String, path: [String]) -> Int? {
        guard let parent = path.last, let owner = positions[parent] else { return nil }
        let kind = steps[owner].node.kind.split(separator: ",").first.map(String.init) ?? ""
        let node = WorkflowGraph.Node(
            id: id, kind: kind, parent: parent, branchCase: nil, depth: path.count,
            isContainer: false, description: steps[owner].node.description)
        steps.append(Step(node: node, path: path))
        positions[id] = steps.count - 1
        return steps.count - 1
    }

    private mutating func finish(_ summary: RunSummary, at time: Date) {
        self.summary = summary
        finished = time
        // In the runner's order, which places the steps made as the run went (and leaves out a
        // forEach's template, which never runs itself).
        let ordered = summary.rows.compactMap { positions[$0.id].map { steps[$0] } }
        if ordered.count != steps.count || ordered.map(\.node.id) != steps.map(\.node.id) {
            steps = ordered
            positions = Dictionary(steps.enumerated().map { ($1.node.id, $0) }) { first, _ in first
            }
        }
        for row in summary.rows {
            guard let position = positions[row.id] else { continue }
            steps[position].status = row.status
            steps[position].reason = row.reason
            steps[position].value = row.value
            if steps[position].duration == nil { steps[position].duration = row.duration }
        }
    }
}

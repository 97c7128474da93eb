import Foundation

/// How long steps are expected to take, by id: where the durations of earlier runs plug in
/// (``KnownStepDurations``, read from the state directory).
protocol StepDurations: Sendable {
    /// How long the step `id` is expected to take, if known.
    func expectedDuration(of id: String) -> TimeInterval?
}

/// No durations from earlier runs: the estimate learns from the run itself.
struct NoStepDurations: StepDurations {
    func expectedDuration(of id: String) -> TimeInterval? { nil }
}

/// The durations of earlier runs, by step id; a step without one is expected to take what
/// the run's finished steps took on average.
struct KnownStepDurations: StepDurations {
    let durations: [String: TimeInterval]

    func expectedDuration(of id: String) -> TimeInterval? { durations[id] }
}

/// The time a run has left, along its critical path: each step that does work is expected to
/// take what earlier runs say (``StepDurations``), or else the mean of the steps finished so
/// far in this one; a running step what is left of that. The estimate is the longer of the
/// longest chain of remaining steps (a step waits for those it depends on, for what the groups
/// it depends on hold, and for what its own groups wait for) and the remaining work spread over
/// the concurrency limit.
struct ProgressEstimate {
    /// Past this many steps, the chains are not followed: the work spread over the limit
    /// alone is the estimate.
    static let largestGraph = 5000

    private let ids: [String]
    /// For each step that does work, those it waits for, by index into `ids`.
    private let waitsFor: [[Int]]
    /// Every index, each after those it waits for; empty for a graph too large.
    private let order: [Int]
    private let concurrency: Int
    private let history: any StepDurations
    private var started: [Date?]
    private var done: [Bool]
    private var ran: [Bool]
    private var finishedDurations: (total: TimeInterval, count: Int) = (0, 0)
    private let positions: [String: Int]

    init(graph: WorkflowGraph, concurrency: Int, history: any StepDurations = NoStepDurations()) {
        let leaves = graph.nodes.filter { !$0.isContainer }
        ids = leaves.map(\.id)
        positions = Dictionary(ids.enumerated().map { ($1, $0) }) { first, _ in first }
        self.concurrency = max(1, concurrency)
        self.history = history
        started = Array(repeating: nil, count: leaves.count)
        done = Array(repeating: false, count: leaves.count)
        ran = Array(repeating: false, count: leaves.count)
        guard leaves.count <= Self.largestGraph else {
            (waitsFor, order) = (Array(repeating: [], count: leaves.count), [])
            return
        }
        waitsFor = Self.prerequisites(graph, positions: positions)
        order = Self.topologicalOrder(waitsFor)
    }

    /// The step `id` started running.
    mutating func started(_ id: String, at date: Date) {
        guard let index = positions[id], started[index] == nil else { return }
        started[index] = date
    }

    /// The step `id` ended (whether it ran or not) at `date`.
    mutating func finished(_ id: String, at date: Date) {
        guard let index = positions[id], !done[index] else { return }
        done[index] = true
        if let start = started[index] {
            ran[index] = true
            finishedDurations.total += date.timeIntervalSince(start)
            finishedDurations.count += 1
        }
    }

    /// The seconds the run has left, or `nil` while nothing tells how long a step takes.
    func remaining(at now: Date) -> TimeInterval? {
        let mean =
            finishedDurations.count > 0
            ? finishedDurations.total / Double(finishedDurations.count) : nil
        var left = [TimeInterval](repeating: 0, count: ids.count)
        for index in ids.indices where !done[index] {
            guard let expected = history.expectedDuration(of: ids[index]) ?? mean else {
                return nil
            }
            let elapsed = started[index].map { now.timeIntervalSince($0) } ?? 0
            left[index] = max(0, expected - elapsed)
        }
        var chain = [TimeInterval](repeating: 0, count: ids.count)
        for index in order {
            chain[index] = left[index] + (waitsFor[index].map { chain[$0] }.max() ?? 0)
        }
        let work = left.reduce(0, +) / Double(concurrency)
        return max(chain.max() ?? 0, work)
    }

    /// For each step that does work, the steps it waits for: edges into it or into a group it
    /// is in, a group's edge standing for every step the group holds.
    private static func prerequisites(_ graph: WorkflowGraph, positions: [String: Int]) -> [[Int]] {
        var held: [String: [Int]] = [:]  // every step that does work inside each container
        var parents: [String: String] = [:]
        for node in graph.nodes {
            parents[node.id] = node.parent
            guard let index = positions[node.id] else { continue }
            var parent = node.parent
            while let id = parent {
                held[id, default: []].append(index)
                parent = parents[id]
            }
        }
        var incoming: [String: [String]] = [:]
        for edge in graph.edges where edge.label != "group input" && edge.label != "group output" {
            incoming[edge.to, default: []].append(edge.from)
        }
        var result = [[Int]](repeating: [], count: positions.count)
        for node in graph.nodes {
            guard let index = positions[node.id] else { continue }
            var sources: Set<Int> = []
            var current: String? = node.id
            while let id = current {
                for from in incoming[id] ?? [] {
                    if let source = positions[from] { sources.insert(source) }
                    for source in held[from] ?? [] { sources.insert(source) }
                }
                current = parents[id]
            }
            sources.remove(index)
            result[index] = sources.sorted()
        }
        return result
    }

    /// Kahn's algorithm; steps caught in a cycle (none, in a valid workflow) are left out.
    private static func topologicalOrder(_ waitsFor: [[Int]]) -> [Int] {
        var waiting = waitsFor.map(\.count)
        var next = [[Int]](repeating: [], count: waitsFor.count)
        for (index, sources) in waitsFor.enumerated() {
            for source in sources { next[source].append(index) }
        }
        var ready = waiting.indices.filter { waiting[$0] == 0 }
        var order: [Int] = []
        while let index = ready.popLast() {
            order.append(index)
            for successor in next[index] {
                waiting[successor] -= 1
                if waiting[successor] == 0 { ready.append(successor) }
            }
        }
        return order
    }
}

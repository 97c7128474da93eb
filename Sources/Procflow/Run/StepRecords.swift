import Foundation
import ProcedureKit

/// Where each step of a run stands — pending, running, done with a status and a reason — in
/// file order, with the steps made as the run goes (a `forEach`'s instances) right after the
/// step they were made for: what the summary and the reporters' paths come from.
final class StepRecords: Sendable {
    /// One step's standing: 64 bytes, its reason, value and name, which most steps of a large
    /// run lack, out of line (128 bytes a step inline).
    struct Record {
        var path: [String]
        /// What few steps have, in a box of its own, replaced when one changes.
        private(set) var details: RunSummary.StepDetails?
        var started: Date?
        /// When the current attempt started.
        var attemptStarted: Date?
        var duration: TimeInterval?
        var status = StepStatus.pending

        init(path: [String], name: String? = nil) {
            self.path = path
            self.name = name
        }

        /// Why it failed or was skipped, or its note when cached.
        var reason: String? {
            get { details?.reason }
            set { details = RunSummary.StepDetails.of(reason: newValue, value: value, name: name) }
        }
        var value: RunSummary.ValuePreview? {
            get { details?.value }
            set { details = RunSummary.StepDetails.of(reason: reason, value: newValue, name: name) }
        }
        /// What people call it, when not its id: a `forEach` instance named by its item.
        var name: String? {
            get { details?.name }
            set {
                details = RunSummary.StepDetails.of(reason: reason, value: value, name: newValue)
            }
        }
    }

    /// The most bytes of value previews kept for the whole run: past it, the rest go
    /// unrecorded, so that a hundred thousand steps with outputs stay bounded.
    static let valueBudget = 8 << 20

    private struct State {
        var records = DenseTable<String, Record>()
        var valueBytes = 0
        /// The steps made as the run went, by the id of the step they were made for, in the
        /// order made.
        var added: [String: [String]] = [:]
    }

    /// The steps of the file, in file order, depth first.
    let order: [String]
    private let state = Locked(State())

    /// Every step of `workflow` but what its `forEach` steps hold (templates: their
    /// instances are reported instead), pending.
    init(_ nestedSteps: [NestedStep]) {
        var order: [String] = []
        var records = DenseTable<String, Record>()
        order.reserveCapacity(nestedSteps.count)
        records.reserveCapacity(nestedSteps.count)
        var templates: Set<String> = []
        for nested in nestedSteps {
            if nested.path.contains(where: templates.contains) { continue }
            if nested.step.forEach != nil { templates.insert(nested.step.id) }
            order.append(nested.step.id)
            records[nested.step.id] = Record(path: nested.path)
        }
        self.order = order
        state.withLock { $0.records = records }
    }

    /// The record of `id`.
    subscript(id: String) -> Record? {
        state.withLock { $0.records[id] }
    }

    /// The groups and branches `id` is in, outermost first.
    func path(of id: String) -> [String] {
        state.withLock { $0.records[id]?.path ?? [] }
    }

    /// Notes that attempt of `id` started at `time`.
    func start(_ id: String, at time: Date) {
        state.withLock { state in
            // One lookup: every step that starts comes through here.
            guard let index = state.records.place(of: id) else { return }
            state.records[place: index].status = .running
            if state.records[place: index].started == nil {
                state.records[place: index].started = time
            }
            state.records[place: index].attemptStarted = time
        }
    }

    /// Notes how long `id` took, now that it ended; returns that, and its record.
    func end(_ id: String) -> (duration: TimeInterval?, record: Record?) {
        state.withLock { state in
            guard let index = state.records.place(of: id) else { return (nil, nil) }
            let duration = state.records[place: index].started.map {
                Date().timeIntervalSince($0)
            }
            state.records[place: index].duration = duration
            return (duration, state.records[place: index])
        }
    }

    /// Sets where `id` ended up.
    func settle(_ id: String, _ status: StepStatus, reason: String?) {
        state.withLock { state in
            guard let index = state.records.place(of: id) else { return }
            state.records[place: index].status = status
            state.records[place: index].reason = reason
        }
    }

    /// Sets each of `steps` cached, with its note as its reason, under one lock and one
    /// lookup a step (the steps found up to date before a run: hundreds at once); returns
    /// where each is, as ``placement(of:)`` would.
    func settleCached(_ steps: [(id: String, note: String?)]) -> [(path: [String], name: String?)] {
        state.withLock { state in
            steps.map { step in
                guard let index = state.records.place(of: step.id) else { return ([], nil) }
                state.records[place: index].status = .cached
                state.records[place: index].reason = step.note
                let record = state.records[place: index]
                return (record.path, record.name)
            }
        }
    }

    /// Keeps the preview of the value `id` gave, while the run's budget for them lasts.
    func keep(_ id: String, value: RunSummary.ValuePreview) {
        state.withLock { state in
            guard state.valueBytes + value.text.utf8.count <= Self.valueBudget else { return }
            state.valueBytes += value.text.utf8.count
            state.records[id]?.value = value
        }
    }

    /// Adds steps made for the step that holds them (the last of their path), pending, with
    /// the `names` people call them by.
    func add(_ steps: [(id: String, path: [String])], names: [String: String]) {
        guard let owner = steps.first?.path.last else { return }
        state.withLock { state in
            for (id, path) in steps where state.records[id] == nil {
                state.records[id] = Record(path: path, name: names[id])
                state.added[owner, default: []].append(id)
            }
        }
    }

    /// The groups and branches `id` is in, and what people call it when not its id: what
    /// an event of it carries, read at once.
    func placement(of id: String) -> (path: [String], name: String?) {
        state.withLock { state in
            let record = state.records[id]
            return (record?.path ?? [], record?.name)
        }
    }

    /// The steps running now.
    var running: [String] {
        state.withLock { state in state.records.filter { $0.value.status == .running }.map(\.key) }
    }

    /// Marks as skipped for `reason` those of `ids` still pending; returns them.
    func skipPending(_ ids: [String], reason: String) -> [String] {
        state.withLock { state in
            ids.filter { id in
                guard state.records[id]?.status == .pending else { return false }
                state.records[id]?.status = .skipped
                state.records[id]?.reason = reason
                return true
            }
        }
    }

    /// Every step still pending, in order, with its path.
    var pending: [(id: String, path: [String])] {
        state.withLock { state in
            // Most runs end with none: told without a lookup by id.
            guard state.records.values.contains(where: { $0.status == .pending }) else {
                return []
            }
            return Self.fullOrder(order, state).compactMap { id -> (String, [String])? in
                guard let record = state.records[id], record.status == .pending else { return nil }
                return (id, record.path)
            }
        }
    }

    /// The summary's rows, in order.
    var rows: [RunSummary.Row] {
        state.withLock { state in
            Self.fullOrder(order, state).map { id in
                let record = state.records[id]!
                return RunSummary.Row(
                    id: id, path: record.path, status: record.status, duration: record.duration,
                    details: record.details)
            }
        }
    }

    /// Every step, in file order, depth first, with the steps made for a step right after it.
    private static func fullOrder(_ order: [String], _ state: State) -> [String] {
        guard !state.added.isEmpty else { return order }
        var full: [String] = []
        for id in order {
            full.append(id)
            full += state.added[id] ?? []
        }
        return full
    }
}

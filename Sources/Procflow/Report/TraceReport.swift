import Foundation

/// `--trace FILE`: the run as Chrome Trace Event JSON, which ui.perfetto.dev and
/// chrome://tracing open.
///
/// Three processes: **steps** has one complete event (`"ph": "X"`) per attempt of each step
/// that does work, on lanes (threads) given out so that two events share a lane only if they
/// do not overlap: as many lanes as steps ran at once. **groups** has the workflow and every
/// group and branch as spans that enclose what they hold. **waits** has what steps waited
/// for before they ran: a condition's evaluation, a mutex, a retry's backoff. Steps that never
/// ran are instant events on the steps' `not run` lane. Every event's `args` hold the step's
/// `status`, `reason`, `path` and `kind`, and an attempt's number. Times are microseconds from
/// the start of the run.
enum TraceReport {
    private enum Process: Int {
        case steps = 1
        case groups = 2
        case waits = 3

        var name: String {
            switch self {
            case .steps: return "steps"
            case .groups: return "groups"
            case .waits: return "waits"
            }
        }
    }

    /// A span to place on a lane.
    private struct Span {
        let start: TimeInterval
        let end: TimeInterval
        let event: (_ lane: Int) -> JSONValue
        /// For a group: the ids it is nested in, which may share its lane.
        var enclosing: Set<String> = []
        var id = ""
    }

    /// The trace of `run`.
    static func render(_ run: RunRecord) -> String {
        var events: [JSONValue] = []
        let end = run.duration
        var attempts: [Span] = []
        var groups: [Span] = [
            Span(
                start: 0, end: end,
                event: { lane in
                    complete(
                        run.name, category: "workflow", process: .groups, lane: lane, start: 0,
                        end: end, args: ["result": .string(run.result)])
                }, id: "")
        ]
        var waits: [Span] = []
        var notRun: [JSONValue] = []
        for step in run.steps {
            waits += waitSpans(of: step, in: run)
            if step.attempts.isEmpty {
                notRun.append(instant(step, at: run.offset(step.ended ?? run.finished ?? Date())))
            } else if step.node.isContainer {
                groups.append(groupSpan(of: step, in: run))
            } else {
                attempts += attemptSpans(of: step, in: run)
            }
        }
        for (process, spans) in [(Process.steps, attempts), (.groups, groups), (.waits, waits)] {
            let (placed, laneCount) = place(spans)
            events += metadata(
                process, lanes: laneCount, notRun: process == .steps && !notRun.isEmpty)
            events += placed
        }
        events += notRun
        return JSONWriter.string([
            ("traceEvents", .array(events)), ("displayTimeUnit", .string("ms")),
            (
                "otherData",
                .object(["workflow": .string(run.name), "generator": .string("procflow")])
            ),
        ]) + "\n"
    }

    /// The waits of `step`, each a span on the waits' lanes.
    private static func waitSpans(of step: RunRecord.Step, in run: RunRecord) -> [Span] {
        step.waits.map { wait in
            let (start, finish) = (run.offset(wait.started), run.offset(wait.ended))
            return Span(start: start, end: finish) { lane in
                complete(
                    "\(step.shown): \(wait.kind.rawValue)", category: "wait", process: .waits,
                    lane: lane, start: start, end: finish,
                    args: ["step": .string(step.id), "wait": .string(wait.kind.rawValue)])
            }
        }
    }

    /// A group or branch `step` that started, as a span that the steps it holds may share.
    private static func groupSpan(of step: RunRecord.Step, in run: RunRecord) -> Span {
        let (start, finish) = (
            run.offset(step.started!), run.offset(step.ended ?? run.finished ?? Date())
        )
        return Span(
            start: start, end: finish,
            event: { lane in
                complete(
                    step.shown, category: step.node.kind, process: .groups, lane: lane,
                    start: start, end: finish, args: args(step))
            }, enclosing: Set(step.path + [""]), id: step.id)
    }

    /// Each attempt of `step`, a span.
    private static func attemptSpans(of step: RunRecord.Step, in run: RunRecord) -> [Span] {
        step.attempts.map { attempt in
            let start = run.offset(attempt.started)
            let finish = run.offset(attempt.ended ?? run.finished ?? Date())
            return Span(start: start, end: finish) { lane in
                complete(
                    attempt.number == 1 ? step.shown : "\(step.shown) (attempt \(attempt.number))",
                    category: "step", process: .steps, lane: lane, start: start,
                    end: finish, args: args(step, attempt: attempt))
            }
        }
    }

    /// Gives each span the lowest lane free at its start, a span free to share its lane with
    /// those that enclose it; returns the events and how many lanes were used.
    private static func place(_ spans: [Span]) -> ([JSONValue], Int) {
        var lanes: [[Span]] = []  // the spans still open on each lane
        var events: [JSONValue] = []
        for span in spans.sorted(by: {
            ($0.start, $0.enclosing.count) < ($1.start, $1.enclosing.count)
        }) {
            var chosen: Int?
            for index in lanes.indices {
                lanes[index].removeAll { $0.end <= span.start }
                if lanes[index].allSatisfy({ span.enclosing.contains($0.id) && $0.end >= span.end })
                {
                    chosen = index
                    break
                }
            }
            let lane = chosen ?? lanes.count
            if chosen == nil { lanes.append([]) }
            lanes[lane].append(span)
            events.append(span.event(lane + 1))
        }
        return (events, lanes.count)
    }

    private static func metadata(_ process: Process, lanes: Int, notRun: Bool) -> [JSONValue] {
        func meta(_ name: String, lane: Int?, _ args: [String: JSONValue]) -> JSONValue {
            var object: [String: JSONValue] = [
                "name": .string(name), "ph": .string("M"), "pid": .number(Double(process.rawValue)),
                "args": .object(args),
            ]
            if let lane { object["tid"] = .number(Double(lane)) }
            return .object(object)
        }
        var events = [
            meta("process_name", lane: nil, ["name": .string(process.name)]),
            meta(
                "process_sort_index", lane: nil, ["sort_index": .number(Double(process.rawValue))]),
        ]
        for lane in 0..<lanes {
            events.append(
                meta("thread_name", lane: lane + 1, ["name": .string("lane \(lane + 1)")]))
        }
        if notRun { events.append(meta("thread_name", lane: 0, ["name": .string("not run")])) }
        return events
    }

    private static func complete(
        _ name: String, category: String, process: Process, lane: Int, start: TimeInterval,
        end: TimeInterval, args: [String: JSONValue]
    ) -> JSONValue {
        .object([
            "name": .string(name), "cat": .string(category), "ph": .string("X"),
            "ts": .number(micros(start)), "dur": .number(max(0, micros(end) - micros(start))),
            "pid": .number(Double(process.rawValue)), "tid": .number(Double(lane)),
            "args": .object(args),
        ])
    }

    private static func instant(_ step: RunRecord.Step, at time: TimeInterval) -> JSONValue {
        .object([
            "name": .string("\(step.shown) \(step.status.rawValue)"), "cat": .string("not run"),
            "ph": .string("i"), "s": .string("t"), "ts": .number(micros(time)),
            "pid": .number(Double(Process.steps.rawValue)), "tid": .number(0),
            "args": .object(args(step)),
        ])
    }

    private static func args(_ step: RunRecord.Step, attempt: RunRecord.Attempt? = nil) -> [String:
        JSONValue]
    {
        var args: [String: JSONValue] = [
            "step": .string(step.id), "status": .string(step.status.rawValue),
            "path": .string(step.path.joined(separator: "/")), "kind": .string(step.node.kind),
        ]
        if let reason = step.reason { args["reason"] = .string(reason) }
        if let attempt {
            args["attempt"] = .number(Double(attempt.number))
            args["attempts"] = .number(Double(step.maxAttempts))
            if let failure = attempt.failure {
                args["status"] = .string("failed")
                args["reason"] = .string(failure)
            }
        }
        return args
    }

    /// Whole microseconds.
    private static func micros(_ seconds: TimeInterval) -> Double {
        (seconds * 1_000_000).rounded()
    }
}

import Foundation

/// `--events json`: one JSON object per line (NDJSON) per event.
///
/// Every object has `event`, `time` (ISO 8601, UTC, milliseconds) and, for step events, `step`
/// (the id) and `path` (the ids of the groups it is in, outermost first). The events and their
/// other fields:
///
/// | event | fields |
/// | --- | --- |
/// | `workflow.started` | `workflow`, `steps` (every id, in file order) |
/// | `step.started` | `attempt`, `attempts` (a step with retries starts once per attempt) |
/// | `step.waited` | `wait` (`condition`, `mutex` or `backoff`), `duration` (seconds, ending now) |
/// | `step.output` | `stream` (`stdout` or `stderr`), `line` |
/// | `step.finished` | `duration` (seconds) |
/// | `step.cached` | `note` (what was put back from the store, if anything) |
/// | `step.explained` | `reason` (why an incremental step runs; with `--explain`) |
/// | `step.failed` | `reason`, `stderr` (last lines), `duration`, `continued` (true if `continueOnError`) |
/// | `step.skipped` | `reason` |
/// | `step.retried` | `attempt` (the next), `attempts`, `reason`, `duration` (of the failed attempt) |
/// | `step.cancelled` | `reason`, `duration` (if it had started) |
/// | `workflow.interrupted` | `signal`, `commands` (still running), `alwaysSteps` (left to run), `gracePeriod` (seconds they have) |
/// | `workflow.finished` | `workflow`, `result` (`succeeded`, `failed`, `interrupted`), `signal` (if interrupted), `duration`, `steps` (`id`, `status`, `duration`, `reason` each) |
public final class JSONEventReporter: Reporter, @unchecked Sendable {
    // @unchecked Sendable: the runner calls `report` one event at a time; `formatter` is only
    // used there.

    private let console: Console
    private let formatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    /// A reporter writing to `console`'s standard output.
    public init(console: Console) {
        self.console = console
    }

    /// Prints `event` as JSON lines: one for each line of output, one for anything else.
    public func report(_ event: RunEvent) {
        var head: JSONWriter.Object = [("time", .string(formatter.string(from: event.time)))]
        if let step = event.step {
            head.append(("step", .string(step)))
            if let name = event.name { head.append(("name", .string(name))) }
            head.append(("path", .array(event.path.map(JSONValue.string))))
        }
        func line(_ name: String, _ fields: JSONWriter.Object) -> String {
            JSONWriter.string([("event", .string(name))] + head + fields) + "\n"
        }
        if case .stepOutput(let stream, let lines) = event.kind {
            console.write(
                lines.map {
                    line(
                        "step.output",
                        [("stream", .string(stream.rawValue)), ("line", .string(String($0)))])
                }
                .joined())
            return
        }
        let (name, fields) = describe(event.kind)
        console.write(line(name, fields))
    }

    /// The name and fields of an event other than output.
    private func describe(_ kind: RunEvent.Kind) -> (String, JSONWriter.Object) {
        switch kind {
        case .workflowStarted(let name, let steps):
            return (
                "workflow.started",
                [("workflow", .string(name)), ("steps", .array(steps.map(JSONValue.string)))]
            )
        case .stepStarted(let attempt, let total):
            return (
                "step.started",
                [("attempt", .number(Double(attempt))), ("attempts", .number(Double(total)))]
            )
        case .stepWaited(let wait, let duration):
            return (
                "step.waited",
                [("wait", .string(wait.rawValue)), ("duration", .number(rounded(duration)))]
            )
        case .stepOutput:
            return ("step.output", [])
        case .stepSucceeded(let duration, let ready):
            var fields: JSONWriter.Object = [("duration", .number(rounded(duration)))]
            if ready { fields.append(("ready", .bool(true))) }
            return ("step.finished", fields)
        case .stepFailed(let reason, let tail, let duration, let tolerated):
            return (
                "step.failed",
                [
                    ("reason", .string(reason)), ("stderr", .array(tail.map(JSONValue.string))),
                    ("duration", .number(rounded(duration))), ("continued", .bool(tolerated)),
                ]
            )
        case .stepSkipped(let reason):
            return ("step.skipped", [("reason", .string(reason))])
        case .stepCached(let note):
            return ("step.cached", note.map { [("note", .string($0))] } ?? [])
        case .stepExplained(let reason):
            return ("step.explained", [("reason", .string(reason))])
        case .stepRetried(let attempt, let total, let reason, let duration):
            return (
                "step.retried",
                [
                    ("attempt", .number(Double(attempt))), ("attempts", .number(Double(total))),
                    ("reason", .string(reason)), ("duration", .number(rounded(duration))),
                ]
            )
        case .stepCancelled(let reason, let duration):
            var fields: JSONWriter.Object = [("reason", .string(reason))]
            if let duration { fields.append(("duration", .number(rounded(duration)))) }
            return ("step.cancelled", fields)
        case .workflowInterrupted(let signal, let commands, let alwaysSteps, let grace):
            return ("workflow.interrupted", interrupted(signal, commands, alwaysSteps, grace))
        case .workflowFinished(let summary):
            return ("workflow.finished", finished(summary))
        }
    }

    /// The fields of `workflow.interrupted`.
    private func interrupted(
        _ signal: Int32, _ commands: Int, _ alwaysSteps: Int, _ grace: TimeInterval
    ) -> JSONWriter.Object {
        [
            ("signal", .string(SignalName.names[signal] ?? "\(signal)")),
            ("commands", .number(Double(commands))), ("alwaysSteps", .number(Double(alwaysSteps))),
            ("gracePeriod", .number(grace)),
        ]
    }

    /// The fields of `workflow.finished`.
    private func finished(_ summary: RunSummary) -> JSONWriter.Object {
        var fields: JSONWriter.Object = [("workflow", .string(summary.name))]
        switch summary.result {
        case .succeeded: fields.append(("result", .string("succeeded")))
        case .failed: fields.append(("result", .string("failed")))
        case .interrupted(let signal):
            fields.append(("result", .string("interrupted")))
            fields.append(("signal", .string(SignalName.names[signal] ?? "\(signal)")))
        }
        fields.append(("duration", .number(rounded(summary.duration))))
        let steps = summary.rows.map { row -> JSONValue in
            var object: [String: JSONValue] = [
                "id": .string(row.id), "status": .string(row.status.rawValue),
            ]
            if let duration = row.duration { object["duration"] = .number(rounded(duration)) }
            if let reason = row.reason { object["reason"] = .string(reason) }
            if let name = row.name { object["name"] = .string(name) }
            return .object(object)
        }
        fields.append(("steps", .array(steps)))
        return fields
    }

    private func rounded(_ seconds: TimeInterval) -> Double {
        (seconds * 1000).rounded() / 1000
    }
}

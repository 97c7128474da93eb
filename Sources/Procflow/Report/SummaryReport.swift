import Foundation

/// `--summary FILE`: the run as one JSON document.
///
/// ```
/// {"version": 1, "workflow": "build", "result": "failed", "signal": "SIGINT" (if interrupted),
///  "started": "2025-01-31T12:00:00.000Z", "duration": 12.5,
///  "counts": {"succeeded": 3, "failed": 1, ...},
///  "steps": [{"id": "compile", "path": ["build"], "kind": "shell", "description": "...",
///             "status": "failed", "reason": "exited with status 1",
///             "started": 0.012, "duration": 3.2,
///             "attempts": [{"attempt": 1, "started": 0.012, "duration": 1.1, "reason": "..."}],
///             "waits": [{"wait": "mutex", "started": 0.002, "duration": 0.01}],
///             "output": {"stdout": {"lines": 10, "bytes": 312}, "stderr": {"lines": 1, "bytes": 20}},
///             "value": {"format": "json", "text": "{\"tag\":\"v1\"}", "bytes": 12, "cut": false}}]}
/// ```
///
/// `value` is the output the step gave other steps (a step with `output`, when it gave one):
/// text as it is, JSON as compact JSON text, its first 4 KiB when longer (`cut`), with the size
/// of the whole.
///
/// Steps are in file order, depth first. `started` of a step, an attempt or a wait is seconds
/// from the start of the run; `duration` is seconds. `description`, `reason`, `started` and
/// `duration` appear when there is one; `counts` holds only the statuses that occur. An
/// attempt's `reason` is why it failed, when another followed. `output` counts what the step
/// printed, a newline counted for each line.
enum SummaryReport {
    /// The summary of `run`.
    static func render(_ run: RunRecord) -> String {
        var tally: [String: Int] = [:]
        for step in run.steps { tally[step.status.rawValue, default: 0] += 1 }
        let counts = tally.mapValues { JSONValue.number(Double($0)) }
        var document: JSONWriter.Object = [
            ("version", .number(1)), ("workflow", .string(run.name)),
            ("result", .string(run.result)),
        ]
        if let signal = run.signal { document.append(("signal", .string(signal))) }
        if let started = run.started { document.append(("started", .string(timestamp(started)))) }
        document.append(("duration", .number(rounded(run.duration))))
        document.append(("counts", .object(counts)))
        document.append(("steps", .array(run.steps.map { step(of: $0, in: run) })))
        return JSONWriter.string(document) + "\n"
    }

    private static func step(of step: RunRecord.Step, in run: RunRecord) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(step.id), "path": .array(step.path.map(JSONValue.string)),
            "kind": .string(step.node.kind), "status": .string(step.status.rawValue),
        ]
        if let description = step.node.description { object["description"] = .string(description) }
        if let reason = step.reason { object["reason"] = .string(reason) }
        if let name = step.name { object["name"] = .string(name) }
        if let started = step.started { object["started"] = .number(rounded(run.offset(started))) }
        if let duration = step.duration { object["duration"] = .number(rounded(duration)) }
        object["attempts"] = .array(
            step.attempts.map { attempt in
                var entry: [String: JSONValue] = [
                    "attempt": .number(Double(attempt.number)),
                    "started": .number(rounded(run.offset(attempt.started))),
                ]
                if let ended = attempt.ended {
                    entry["duration"] = .number(rounded(ended.timeIntervalSince(attempt.started)))
                }
                if let failure = attempt.failure { entry["reason"] = .string(failure) }
                return .object(entry)
            })
        object["waits"] = .array(
            step.waits.map { wait in
                .object([
                    "wait": .string(wait.kind.rawValue),
                    "started": .number(rounded(run.offset(wait.started))),
                    "duration": .number(rounded(wait.ended.timeIntervalSince(wait.started))),
                ])
            })
        var output: [String: JSONValue] = [:]
        for stream in [ShellProcedure.Stream.stdout, .stderr] {
            output[stream.rawValue] = .object([
                "lines": .number(Double(step.log.lineCounts[stream, default: 0])),
                "bytes": .number(Double(step.log.byteCounts[stream, default: 0])),
            ])
        }
        object["output"] = .object(output)
        if let value = step.value {
            object["value"] = .object([
                "format": .string(value.format.rawValue), "text": .string(value.text),
                "bytes": .number(Double(value.bytes)), "cut": .bool(value.isCut),
            ])
        }
        return .object(object)
    }

    private static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Milliseconds, as seconds.
    private static func rounded(_ seconds: TimeInterval) -> Double {
        (seconds * 1000).rounded() / 1000
    }
}

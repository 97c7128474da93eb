extension RunEvent {
    /// The event with `secrets` masked in every text it carries: the commands' lines, reasons,
    /// notes, stderr tails and the summary's reasons and values.
    func masking(_ secrets: SecretValues) -> RunEvent {
        var event = self
        switch kind {
        case .stepOutput(let stream, let lines):
            event.kind = .stepOutput(stream, lines.map { Substring(secrets.mask($0)) })
        case .stepCached(let note):
            event.kind = .stepCached(note: note.map(secrets.mask))
        case .stepExplained(let reason):
            event.kind = .stepExplained(reason: secrets.mask(reason))
        case .stepFailed(let reason, let tail, let duration, let tolerated):
            event.kind = .stepFailed(
                reason: secrets.mask(reason), stderrTail: tail.map(secrets.mask),
                duration: duration, tolerated: tolerated)
        case .stepSkipped(let reason):
            event.kind = .stepSkipped(reason: secrets.mask(reason))
        case .stepRetried(let attempt, let of, let reason, let duration):
            event.kind = .stepRetried(
                attempt: attempt, of: of, reason: secrets.mask(reason), duration: duration)
        case .stepCancelled(let reason, let duration):
            event.kind = .stepCancelled(reason: secrets.mask(reason), duration: duration)
        case .workflowFinished(var summary):
            summary.rows = summary.rows.map { row in
                var row = row
                row.reason = row.reason.map(secrets.mask)
                if let text = row.value?.text { row.value?.text = secrets.mask(text) }
                return row
            }
            event.kind = .workflowFinished(summary)
        case .workflowStarted, .stepStarted, .stepWaited, .stepSucceeded, .workflowInterrupted:
            break
        }
        return event
    }
}

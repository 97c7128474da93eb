import Foundation

/// How a run in which nothing had to run is reported: incremental steps as up to date (with
/// what was put back, if anything), the groups that hold them as started and finished.
enum UpToDateReport {
    /// Emits the events of `steps`; returns their summary rows.
    static func report(
        _ steps: [UpToDateSnapshot.Step], notes: [String: String],
        to emit: (RunEvent) -> Void
    ) -> [RunSummary.Row] {
        var rows: [RunSummary.Row] = []
        rows.reserveCapacity(steps.count)
        for step in steps {
            if step.isContainer {
                emit(
                    RunEvent(step: step.id, path: step.path, kind: .stepStarted(attempt: 1, of: 1)))
                emit(RunEvent(step: step.id, path: step.path, kind: .stepSucceeded(duration: 0)))
                rows.append(
                    RunSummary.Row(
                        id: step.id, path: step.path, status: .succeeded, duration: 0, reason: nil))
            } else {
                let note = notes[step.id]
                emit(RunEvent(step: step.id, path: step.path, kind: .stepCached(note: note)))
                rows.append(
                    RunSummary.Row(
                        id: step.id, path: step.path, status: .cached, duration: nil, reason: note))
            }
        }
        return rows
    }

    /// Reports the run a snapshot stands for, to `reporters`; returns its summary.
    static func run(_ snapshot: UpToDateSnapshot, reporters: [any Reporter]) -> RunSummary {
        let started = Date()
        func emit(_ event: RunEvent) {
            for reporter in reporters { reporter.report(event) }
        }
        emit(RunEvent(kind: .workflowStarted(name: snapshot.name, steps: snapshot.steps.map(\.id))))
        let rows = report(snapshot.steps, notes: [:], to: emit)
        let summary = RunSummary(
            name: snapshot.name, rows: rows, result: .succeeded,
            duration: Date().timeIntervalSince(started))
        emit(RunEvent(kind: .workflowFinished(summary)))
        return summary
    }
}

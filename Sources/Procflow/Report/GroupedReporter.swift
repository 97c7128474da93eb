import Foundation
import ProcedureKit

/// Output for CI logs: each step's output printed as one block when the step ends. In GitHub
/// Actions (`GITHUB_ACTIONS=true`) blocks are `::group::` sections and failures are
/// `::error::` annotations. In GitLab CI (`GITLAB_CI=true`) blocks are collapsible sections
/// (`section_start` / `section_end` markers, timed from the step's start to its end), collapsed
/// but for failures and warnings.
public final class GroupedReporter: Reporter, @unchecked Sendable {
    // @unchecked Sendable: the runner calls `report` one event at a time; `buffers` is only
    // touched there.

    /// The most output kept per step; beyond it, the earliest lines are dropped and counted.
    static let bufferLimit = 4 << 20

    private let console: Console
    private let github: Bool
    private let gitlab: Bool
    private let style: Style
    private var buffers: [String: LineTail<String>] = [:]
    private var starts: [String: Date] = [:]
    /// The steps whose block is printed.
    private var ended: Set<String> = []

    /// A reporter writing to `console`; it finds GitHub Actions and GitLab CI in the console's
    /// environment.
    public init(console: Console) {
        self.console = console
        github = console.environment["GITHUB_ACTIONS"] == "true"
        gitlab = !github && console.environment["GITLAB_CI"] == "true"
        style = Style(
            enabled: console.outputIsTerminal && console.allowsColor && !github && !gitlab)
    }

    /// Keeps a step's output until the step ends, then prints it as one block.
    public func report(_ event: RunEvent) {
        let id = event.shownStep ?? ""
        switch event.kind {
        case .workflowStarted(let name, let steps):
            console.write("procflow: running \(name), \(plural(steps.count, "step"))\n")
        case .stepStarted(let attempt, _):
            // A retry's attempts share one block.
            if attempt == 1 {
                buffers[id] = LineTail(limit: Self.bufferLimit)
                starts[id] = event.time
            }
        case .stepWaited:
            break
        case .stepOutput(let stream, let lines) where ended.contains(id):
            // A service writes on after its step has ended (ready): its lines go out at once.
            for line in lines {
                console.write("\(id): \(stream == .stderr ? "[stderr] " : "")\(line)\n")
            }
        case .stepOutput(let stream, let lines):
            // Mutated in place: copying the buffer out and back would copy every line kept.
            for line in lines {
                buffers[id, default: LineTail(limit: Self.bufferLimit)].append(
                    stream == .stderr ? "[stderr] \(line)" : String(line))
            }
        case .stepSucceeded(let duration, let ready):
            let done = ready ? "ready" : "succeeded"
            block(id, title: "\(id): \(done) in \(formatDuration(duration))", event, .succeeded)
        case .stepFailed(let reason, let tail, let duration, let tolerated):
            let title =
                "\(id): \(tolerated ? "failed (continuing)" : "failed") after \(formatDuration(duration)): \(reason)"
            block(id, title: title, event, tolerated ? .warning : .failed)
            if github {
                let kind = tolerated ? "warning" : "error"
                console.write(
                    "::\(kind) title=\(escape(id)) failed::\(escape(reason + (tail.last.map { " — \($0)" } ?? "")))\n"
                )
            }
        case .stepCancelled(let reason, _):
            block(id, title: "\(id): cancelled: \(reason)", event, .cancelled)
        case .stepCached(let note):
            console.write("\(id): up to date\(note.map { " (\($0))" } ?? "")\n")
        case .stepExplained(let reason):
            console.write("\(id): runs: \(reason)\n")
        case .stepSkipped(let reason):
            console.write("\(id): skipped: \(reason)\n")
        case .stepRetried(let attempt, let total, let reason, _):
            console.write("\(id): attempt \(attempt) of \(total) after: \(reason)\n")
        case .workflowInterrupted:
            console.write((event.kind.interruptionNotice ?? "") + "\n")
        case .workflowFinished(let summary):
            TerminalReporter.summaryTable(summary, style: style, write: console.write)
        }
    }

    private func block(_ id: String, title: String, _ end: RunEvent, _ status: StepStatus) {
        ended.insert(id)
        let buffer = buffers.removeValue(forKey: id) ?? LineTail(limit: Self.bufferLimit)
        let started = starts.removeValue(forKey: id) ?? end.time
        // GitLab: section names take letters, digits, `_`, `.` and `-`, as step ids do.
        let section = "procflow_\(id)"
        var text: String
        if github {
            text = "::group::\(title)\n"
        } else if gitlab {
            let collapsed = status.presentation.isProblem ? "" : "[collapsed=true]"
            text =
                "\u{1B}[0Ksection_start:\(Int(started.timeIntervalSince1970)):\(section)\(collapsed)"
            text += "\r\u{1B}[0K\(title)\n"
        } else {
            text = "=== \(title)\n"
        }
        if buffer.dropped > 0 { text += "… \(buffer.dropped) earlier lines not kept\n" }
        var lines = buffer.lines
        while let line = lines.popFirst() { text += line + "\n" }
        if github {
            text += "::endgroup::\n"
        } else if gitlab {
            text +=
                "\u{1B}[0Ksection_end:\(Int(end.time.timeIntervalSince1970)):\(section)\r\u{1B}[0K\n"
        } else {
            text += "\n"
        }
        console.write(text)
    }

    /// Escapes a GitHub workflow command's data.
    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}

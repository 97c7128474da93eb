import Foundation
import ProcedureKit

/// Output for CI logs: each step's output printed as one block when the step ends. In GitHub
/// Actions (`GITHUB_ACTIONS=true`) blocks are `::group::` sections and failures are
/// `::error::` annotations.
public final class GroupedReporter: Reporter, @unchecked Sendable {
    // @unchecked Sendable: the runner calls `report` one event at a time; `buffers` is only
    // touched there.

    /// The most output kept per step; beyond it, the earliest lines are dropped and counted.
    static let bufferLimit = 4 << 20

    /// A step's output so far: a ring of lines, the oldest dropped past the byte limit.
    private struct Buffer {
        var lines = RingBuffer<String>()
        var bytes = 0
        var dropped = 0

        mutating func append(_ line: String) {
            lines.append(line)
            bytes += line.utf8.count
            while bytes > GroupedReporter.bufferLimit, let oldest = lines.popFirst() {
                bytes -= oldest.utf8.count
                dropped += 1
            }
        }
    }

    private let console: Console
    private let github: Bool
    private let style: Style
    private var buffers: [String: Buffer] = [:]

    /// A reporter writing to `console`; it finds GitHub Actions in the console's environment.
    public init(console: Console) {
        self.console = console
        github = console.environment["GITHUB_ACTIONS"] == "true"
        style = Style(enabled: console.outputIsTerminal && console.allowsColor && !github)
    }

    /// Keeps a step's output until the step ends, then prints it as one block.
    public func report(_ event: RunEvent) {
        let id = event.step ?? ""
        switch event.kind {
        case .workflowStarted(let name, let steps):
            console.write("procflow: running \(name), \(plural(steps.count, "step"))\n")
        case .stepStarted:
            buffers[id] = Buffer()
        case .stepOutput(let stream, let lines):
            // Mutated in place: copying the buffer out and back would copy every line kept.
            for line in lines {
                buffers[id, default: Buffer()].append(
                    stream == .stderr ? "[stderr] \(line)" : String(line))
            }
        case .stepSucceeded(let duration):
            block(id, title: "\(id): succeeded in \(formatDuration(duration))")
        case .stepFailed(let reason, let tail, let duration, let tolerated):
            let title =
                "\(id): \(tolerated ? "failed (continuing)" : "failed") after \(formatDuration(duration)): \(reason)"
            block(id, title: title)
            if github {
                let kind = tolerated ? "warning" : "error"
                console.write(
                    "::\(kind) title=\(escape(id)) failed::\(escape(reason + (tail.last.map { " — \($0)" } ?? "")))\n"
                )
            }
        case .stepCancelled(let reason, _):
            block(id, title: "\(id): cancelled: \(reason)")
        case .stepCached(let note):
            console.write("\(id): up to date\(note.map { " (\($0))" } ?? "")\n")
        case .stepExplained(let reason):
            console.write("\(id): runs: \(reason)\n")
        case .stepSkipped(let reason):
            console.write("\(id): skipped: \(reason)\n")
        case .stepRetried(let attempt, let total, let reason):
            console.write("\(id): attempt \(attempt) of \(total) after: \(reason)\n")
        case .workflowFinished(let summary):
            console.write(TerminalReporter.summaryTable(summary, style: style))
        }
    }

    private func block(_ id: String, title: String) {
        let buffer = buffers.removeValue(forKey: id) ?? Buffer()
        var text = github ? "::group::\(title)\n" : "=== \(title)\n"
        if buffer.dropped > 0 { text += "… \(buffer.dropped) earlier lines not kept\n" }
        var lines = buffer.lines
        while let line = lines.popFirst() { text += line + "\n" }
        text += github ? "::endgroup::\n" : "\n"
        console.write(text)
    }

    /// Escapes a GitHub workflow command's data.
    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}

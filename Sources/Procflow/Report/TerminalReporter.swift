import Dispatch
import Foundation
import ProcedureKit

/// The default output: each line of a step's output prefixed with the step's id, padded so
/// that lines align (coloured per step on a terminal), a line when a step starts, finishes,
/// fails, is skipped, retried or cancelled, and a summary table at the end.
///
/// On a terminal (not `TERM=dumb`) a live panel stays below the log: the running steps with
/// how long they have run, and a progress bar with the steps done and the time left
/// (``LivePanel``, ``ProgressEstimate``). Output and panel are drawn together, at most ten
/// times a second: the panel is erased, the new lines written, the panel drawn again below
/// them, so the two never mix; it is erased for good before the summary.
public final class TerminalReporter: Reporter, @unchecked Sendable {
    // @unchecked Sendable: every mutable property is touched only holding `lock`, which
    // `report` and the panel's timer both take.

    /// How often the panel may be redrawn.
    static let redrawInterval: DispatchTimeInterval = .milliseconds(100)
    /// The widest prefix: longer ids overflow it.
    static let widestPrefix = 32

    private let console: Console
    private let style: Style
    /// What follows the prefix on the line of a step found up to date without a note: made
    /// once, as a run of a hundred thousand up-to-date steps writes as many such lines.
    private let upToDateSuffix: String
    /// Held while an event is handled or the panel drawn. (A mutex, not `queue.sync`, which
    /// cost a tenth of a 2,000-step no-op's instructions.)
    private let lock = Locked(())
    /// Where the panel's timer fires.
    private let queue = DispatchQueue(label: "procflow.terminal")
    private var colors: [String: String] = [:]
    private var prefixWidth = 0
    /// Whether a run with nothing to do prints its every line and the table too.
    private let verbose: Bool
    /// The events held back while every step reported was up to date or skipped: their lines
    /// are made and written when a step does something, and never made when none did (one
    /// line says so); `nil` once written.
    private var held: [Held]? = []
    /// Whether lines are held back now: nothing but up-to-date and skipped steps reported yet,
    /// and not `verbose`.
    private var isHolding: Bool { held != nil && !verbose }

    /// What a held line is made from: its event's step and kind, not the whole event (no kind
    /// for a step up to date without a note, as most are).
    private struct Held {
        let step: String
        let kind: RunEvent.Kind?

        init(step: String, kind: RunEvent.Kind) {
            self.step = step
            if case .stepCached(nil) = kind { self.kind = nil } else { self.kind = kind }
        }
    }
    // The live panel's state: nil without a panel.
    private var panel: PanelState?

    private struct PanelState {
        var estimate: ProgressEstimate?
        var running: [String: Date] = [:]
        var runningOrder: [String] = []
        var done = 0
        var total = 0
        /// Text written since the last draw, waiting for the next.
        var pending = ""
        /// The lines the panel takes on screen now.
        var shownLines: [String] = []
        var timer: (any DispatchSourceTimer)?
    }

    /// - Parameters:
    ///   - estimate: what the panel's time left is worked out with; without one, the panel
    ///     shows no estimate.
    ///   - livePanel: whether to keep the live panel; by default, when standard output is a
    ///     terminal and `TERM` is not `dumb`.
    ///   - verbose: whether a run with nothing to do prints its lines and the table, instead
    ///     of one line.
    public convenience init(console: Console, livePanel: Bool? = nil, verbose: Bool = false) {
        self.init(console: console, estimate: nil, livePanel: livePanel, verbose: verbose)
    }

    /// - Parameter estimate: made only if the panel shows (on a terminal).
    init(
        console: Console, estimate: @autoclosure () -> ProgressEstimate?, livePanel: Bool? = nil,
        verbose: Bool = false
    ) {
        self.console = console
        self.verbose = verbose
        style = Style(enabled: console.outputIsTerminal && console.allowsColor)
        upToDateSuffix = " " + style.green("✓ up to date") + "\n"
        let wanted =
            livePanel ?? (console.outputIsTerminal && console.environment["TERM"] != "dumb")
        panel = wanted ? PanelState(estimate: estimate()) : nil
    }

    /// Prints `event` as text (on a terminal, with the panel, at the next redraw).
    public func report(_ event: RunEvent) {
        lock.withLock { _ in handle(event) }
    }

    private func handle(_ event: RunEvent) {
        track(event)
        var text: String
        if let line = upToDateLine(for: event) {
            // Before its text is made: the summary table of every step, left out for the line.
            text = line
        } else if isHolding, Self.isHeldWhileQuiet(event.kind) {
            // Its line is made only if it is written; its step takes its colour now, in the
            // order of the events, as when lines were made as they came.
            let step = event.shownStep ?? ""
            if case .workflowStarted = event.kind {} else { _ = color(for: step) }
            held!.append(Held(step: step, kind: event.kind))
            return
        } else if case .workflowFinished(let summary) = event.kind {
            // Written in pieces as it is made: a large run's table is not held whole.
            var lead = ""
            if isHolding {
                lead = heldText()
                held = nil
            }
            lead = closePanel() + lead
            Self.summaryTable(summary, style: style) { piece in
                console.write(lead + piece)
                lead = ""
            }
            return
        } else {
            text = self.text(for: event)
            if isHolding, !text.isEmpty {
                text = heldText() + text
                held = nil
            }
        }
        if case .workflowFinished = event.kind {
            console.write(closePanel() + text)
        } else if panel != nil {
            panel!.pending += text
        } else if !text.isEmpty {
            console.write(text)
        }
    }

    /// Stops the panel of steps under way, if one is shown: the text that erases it and the
    /// lines it held back, to write before the run's last lines.
    private func closePanel() -> String {
        panel?.timer?.cancel()
        defer { panel = nil }
        return erasePanel() + (panel?.pending ?? "")
    }

    /// The lines held back, made now: one text, put together as bytes (a step up to date
    /// without a note, most of them, as ``text(for:step:)`` makes its line, without a text of
    /// its own: hundreds of lines were a tenth of a run of one step among them).
    private func heldText() -> String {
        let held = held ?? []
        let upToDate = Array(upToDateSuffix.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(held.count * (prefixWidth + upToDate.count + 12))
        for waiting in held {
            guard waiting.kind == nil else {
                bytes.append(contentsOf: text(for: waiting.kind!, step: waiting.step).utf8)
                continue
            }
            if style.enabled {
                bytes.append(contentsOf: "\u{1B}[".utf8)
                bytes.append(contentsOf: color(for: waiting.step).utf8)
                bytes.append(UInt8(ascii: "m"))
                bytes.append(contentsOf: waiting.step.utf8)
                bytes.append(contentsOf: "\u{1B}[0m".utf8)
            } else {
                bytes.append(contentsOf: waiting.step.utf8)
            }
            for _ in 0..<max(0, prefixWidth - Self.length(waiting.step)) {
                bytes.append(UInt8(ascii: " "))
            }
            bytes.append(contentsOf: upToDate)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether an event's line waits while nothing but up-to-date and skipped steps has been
    /// reported.
    private static func isHeldWhileQuiet(_ kind: RunEvent.Kind) -> Bool {
        switch kind {
        case .workflowStarted, .stepCached, .stepSkipped: return true
        default: return false
        }
    }

    /// At the end of a run in which no step did anything (while lines were held), the one line
    /// that says so; `nil` otherwise.
    private func upToDateLine(for event: RunEvent) -> String? {
        guard isHolding, case .workflowFinished(let summary) = event.kind,
            summary.result == .succeeded,
            summary.rows.allSatisfy({
                ($0.status == .cached && $0.reason == nil) || $0.status == .skipped
            })
        else { return nil }
        held = nil
        let skipped = summary.count(.skipped)
        var line = "procflow: \(plural(summary.count(.cached), "step")) up to date"
        if skipped > 0 { line += ", \(skipped) skipped" }
        return line + " (\(formatDuration(summary.duration)))\n"
    }

    /// What the panel needs of `event`.
    private func track(_ event: RunEvent) {
        if case .workflowStarted(_, let steps) = event.kind {
            // Counted as the prefixes are padded: by bytes for ASCII ids.
            var widest = 0
            for step in steps { widest = max(widest, Self.length(step)) }
            prefixWidth = min(Self.widestPrefix, widest)
        }
        guard panel != nil else { return }
        // The estimate knows steps by id; the panel shows their names.
        let (id, shown) = (event.step ?? "", event.shownStep ?? "")
        switch event.kind {
        case .workflowStarted(_, let steps):
            panel!.total = steps.count
            startTimer()
        case .stepStarted(let attempt, _):
            guard attempt == 1 else { return }
            panel!.running[shown] = event.time
            panel!.runningOrder.append(shown)
            panel!.estimate?.started(id, at: event.time)
        case .stepSucceeded, .stepCached, .stepFailed, .stepSkipped, .stepCancelled:
            panel!.running[shown] = nil
            panel!.runningOrder.removeAll { $0 == shown }
            panel!.done += 1
            panel!.estimate?.finished(id, at: event.time)
        case .stepOutput, .stepWaited, .stepRetried, .stepExplained, .workflowInterrupted,
            .workflowFinished:
            break
        }
    }

    private func text(for event: RunEvent) -> String {
        text(for: event.kind, step: event.shownStep ?? "")
    }

    /// The text of an event of `kind` about step `id` (as people know it).
    private func text(for kind: RunEvent.Kind, step id: String) -> String {
        switch kind {
        case .workflowStarted(let name, let steps):
            return style.bold("procflow: running \(name), \(plural(steps.count, "step"))") + "\n"
        case .stepStarted(let attempt, let total):
            let started = attempt == 1 ? "started" : "started attempt \(attempt) of \(total)"
            return "\(prefix(id)) " + style.dim(started) + "\n"
        case .stepOutput(_, let lines):
            let head = prefix(id) + " "
            var text = ""
            for line in lines {
                text += head
                text += visible(line)
                text += "\n"
            }
            return text
        case .stepWaited:
            return ""
        case .stepSucceeded(let duration, let ready):
            let done = ready ? "ready" : "finished"
            return "\(prefix(id)) " + style.green("✓ \(done) in \(formatDuration(duration))") + "\n"
        case .stepCached(nil):
            return prefix(id) + upToDateSuffix
        case .stepCached(let note?):
            return "\(prefix(id)) " + style.green("✓ up to date") + style.dim(" (\(note))") + "\n"
        case .stepExplained(let reason):
            return "\(prefix(id)) " + style.dim("runs: \(reason)") + "\n"
        case .stepFailed(let reason, let tail, let duration, let tolerated):
            let verdict =
                tolerated
                ? style.yellow("! failed after \(formatDuration(duration)) (continuing): \(reason)")
                : style.red("✗ failed after \(formatDuration(duration)): \(reason)")
            var text = "\(prefix(id)) \(verdict)\n"
            if !tail.isEmpty {
                text += "\(prefix(id)) " + style.dim("last lines of stderr:") + "\n"
                for line in tail {
                    text += "\(prefix(id))   " + style.dim("│ \(visible(line[...]))") + "\n"
                }
            }
            return text
        case .stepSkipped(let reason):
            return "\(prefix(id)) " + style.yellow("– skipped: \(reason)") + "\n"
        case .stepRetried(let attempt, let total, let reason, _):
            return "\(prefix(id)) "
                + style.yellow("↻ attempt \(attempt) of \(total) after: \(reason)") + "\n"
        case .stepCancelled(let reason, _):
            return "\(prefix(id)) " + style.red("✗ cancelled: \(reason)") + "\n"
        case .workflowInterrupted:
            return style.yellow(kind.interruptionNotice ?? "") + "\n"
        case .workflowFinished(let summary):
            return Self.summaryTable(summary, style: style)
        }
    }

    /// A line of a command's output as it should show after a prefix: from its last carriage
    /// return on (what a terminal would show, without going back over the prefix), and on a
    /// terminal with the command's colours reset at its end, so that they do not run into the
    /// next prefix.
    private func visible(_ line: Substring) -> Substring {
        var line = line
        // Bytes, not `contains("\r")`: Foundation's string search costs microseconds a line.
        if line.containsByte(0x0D) {
            while line.utf8.last == 0x0D { line = line.dropLast() }
            if let carriageReturn = line.utf8.lastIndex(of: 0x0D) {
                line = line[line.utf8.index(after: carriageReturn)...]
            }
        }
        guard console.outputIsTerminal, line.containsByte(0x1B) else { return line }
        return line + "\u{1B}[0m"
    }

    /// The step's id, padded to the width of the longest (up to ``widestPrefix``) and coloured.
    private func prefix(_ id: String) -> String {
        guard style.enabled else { return Self.padded(id, prefixWidth) }
        let padding = String(repeating: " ", count: max(0, prefixWidth - Self.length(id)))
        return style.colored(id, color(for: id)) + padding
    }

    /// The colour of step `id`'s prefix: the next one for a step not seen before. Without
    /// colour, none is chosen.
    private func color(for id: String) -> String {
        guard style.enabled else { return "" }
        if let color = colors[id] { return color }
        let color = Style.stepColors[colors.count % Style.stepColors.count]
        colors[id] = color
        return color
    }

    /// How many characters `text` has, counted by bytes when they are all ASCII (as ids mostly
    /// are): counting characters is a Unicode walk.
    static func length(_ text: String) -> Int { text.isAllASCII ? text.utf8.count : text.count }

    /// `text` with spaces after it up to `width` characters.
    static func padded(_ text: String, _ width: Int) -> String {
        let missing = width - length(text)
        return missing > 0 ? text + String(repeating: " ", count: missing) : text
    }

    // MARK: - The live panel

    private func startTimer() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.redrawInterval, repeating: Self.redrawInterval)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            lock.withLock { _ in redraw() }
        }
        timer.resume()
        panel?.timer = timer
    }

    /// Writes what came since the last draw, and the panel below it, if anything changed.
    private func redraw() {
        guard let state = panel else { return }
        let now = Date()
        let live = LivePanel(
            running: state.runningOrder.compactMap { id in
                state.running[id].map { LivePanel.Running(id: id, since: $0, color: colors[id]) }
            },
            done: state.done, total: state.total, remaining: state.estimate?.remaining(at: now))
        let lines = live.lines(at: now, width: console.terminalWidth(), style: style)
        guard !state.pending.isEmpty || lines != state.shownLines else { return }
        let output = erasePanel() + state.pending + lines.joined(separator: "\n")
        panel!.pending = ""
        panel!.shownLines = lines
        console.write(output)
    }

    /// The sequence that erases the panel drawn last, leaving the cursor where it began.
    private func erasePanel() -> String {
        guard let shown = panel?.shownLines.count, shown > 0 else { return "" }
        panel!.shownLines = []
        return "\r" + (shown > 1 ? "\u{1B}[\(shown - 1)A" : "") + "\u{1B}[J"
    }

    // MARK: - The summary

    /// The table that ends a run: one row per step, then the totals.
    static func summaryTable(_ summary: RunSummary, style: Style) -> String {
        var table = ""
        summaryTable(summary, style: style) { table += $0 }
        return table
    }

    /// The most bytes of the summary's table made before they are handed on: a table of
    /// 100,000 rows, 17 MB, is not held whole (twice, as bytes and as text) at the end of a
    /// run, when its memory is at its highest.
    static let summaryPiece = 64 << 10

    /// The table that ends a run, handed to `write` in pieces of whole lines.
    static func summaryTable(_ summary: RunSummary, style: Style, write: (String) -> Void) {
        let width = max(4, summary.rows.map { length($0.shown) + 2 * $0.path.count }.max() ?? 4)
        // Bytes, then one text: appending to a text row by row was a twentieth of a run of one
        // step among hundreds.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(64 * (summary.rows.count + 4), summaryPiece + 4096))
        func put(_ text: String) { bytes.append(contentsOf: text.utf8) }
        func put(_ text: String, paddedTo width: Int) {
            put(text)
            for _ in 0..<max(0, width - length(text)) { bytes.append(UInt8(ascii: " ")) }
        }
        put("\n" + style.bold("Summary of \(summary.name)") + "\n  ")
        put("STEP", paddedTo: width)
        put("  STATUS     DURATION   NOTE\n")
        // Each status's column made once, not once a row.
        let statuses = StepStatus.allCases
        let statusColumns = statuses.map { status in
            let text = padded(status.rawValue, 9)
            return Array(
                (status.presentation.terminalColor.map { style.colored(text, $0) } ?? text).utf8)
        }
        // Most rows of a large run: a step that did not run.
        let noDuration = Array(padded("–", 9).utf8)
        var counts = [Int](repeating: 0, count: statuses.count)
        let space = UInt8(ascii: " ")
        // The two spaces between columns.
        func gap() {
            bytes.append(space)
            bytes.append(space)
        }
        // By index, each field read where it is: a row copied whole per step was a seventh of
        // the table's cost.
        let rows = summary.rows
        for position in rows.indices {
            let index = statuses.firstIndex(of: rows[position].status)!
            counts[index] += 1
            let depth = rows[position].path.count
            bytes.append(contentsOf: repeatElement(space, count: 2 + 2 * depth))
            put(rows[position].shown, paddedTo: width - 2 * depth)
            gap()
            bytes.append(contentsOf: statusColumns[index])
            gap()
            if let duration = rows[position].duration {
                put(formatDuration(duration), paddedTo: 9)
            } else {
                bytes.append(contentsOf: noDuration)
            }
            gap()
            if let reason = rows[position].reason { put(reason) }
            bytes.append(UInt8(ascii: "\n"))
            if bytes.count >= summaryPiece {
                write(String(decoding: bytes, as: UTF8.self))
                bytes.removeAll(keepingCapacity: true)
            }
        }
        var text = String(decoding: bytes, as: UTF8.self)
        var totals: [String] = []
        for (status, count) in zip(statuses, counts) where count > 0 {
            totals.append("\(count) \(status.rawValue)")
        }
        let verdict: String
        switch summary.result {
        case .succeeded: verdict = style.green("succeeded")
        case .failed: verdict = style.red("failed")
        case .interrupted(let signal):
            verdict = style.red("interrupted by \(SignalName.describe(signal))")
        }
        // Joined by hand: a generic `joined` costs a quarter of a million instructions the
        // first time it runs, in the runtime's lookups of its types.
        var counted = ""
        for total in totals { counted += counted.isEmpty ? total : ", " + total }
        text += "\n\(summary.name) \(verdict) in \(formatDuration(summary.duration)): \(counted)\n"
        write(text)
    }
}

import Foundation

/// The lines the terminal keeps below the log while a run lasts: each running step with how
/// long it has run, then a progress bar with the steps done, the total and the time left.
struct LivePanel {
    /// A step that is running, and since when.
    struct Running {
        let id: String
        let since: Date
        /// The step's colour, an ANSI code.
        let color: String?
    }

    /// The most running steps listed; the rest are counted.
    static let maximumRunning = 6
    /// The width of the bar, in cells.
    static let barWidth = 24

    var running: [Running]
    var done: Int
    var total: Int
    /// Seconds left, if known.
    var remaining: TimeInterval?

    /// The panel's lines at `now`, none wider than `width` columns (all but the last column,
    /// so that a line never wraps).
    func lines(at now: Date, width: Int?, style: Style) -> [String] {
        let limit = max(20, (width ?? 80) - 1)
        let nameWidth = min(32, running.map(\.id.count).max() ?? 0)
        var lines: [String] = []
        for step in running.prefix(Self.maximumRunning) {
            let name = step.id.padding(
                toLength: max(nameWidth, step.id.count), withPad: " ", startingAt: 0)
            let elapsed = formatElapsed(now.timeIntervalSince(step.since))
            let text = fitted("  ▸ \(name)  \(elapsed)", limit)
            lines.append(step.color.map { style.colored(text, $0) } ?? text)
        }
        if running.count > Self.maximumRunning {
            lines.append(
                style.dim(
                    fitted("  … and \(running.count - Self.maximumRunning) more running", limit)))
        }
        let fraction = total == 0 ? 1 : Double(done) / Double(total)
        let filled = Int((fraction * Double(Self.barWidth)).rounded(.down))
        let bar =
            String(repeating: "█", count: filled)
            + String(repeating: "░", count: Self.barWidth - filled)
        var progress = "\(bar) \(done)/\(total) steps"
        // Rounded up: a step that has a fraction of a second left has not "0s" left.
        progress +=
            remaining.map { " · about \(formatElapsed($0.rounded(.up))) left" }
            ?? " · estimating the time left"
        lines.append(fitted(progress, limit))
        return lines
    }

    /// Whole seconds, so that the panel changes at most once a second while nothing happens.
    private func formatElapsed(_ seconds: TimeInterval) -> String {
        let whole = Int(max(0, seconds).rounded(.down))
        return whole < 60 ? "\(whole)s" : String(format: "%dm%02ds", whole / 60, whole % 60)
    }

    /// `text` cut to `limit` characters.
    private func fitted(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}

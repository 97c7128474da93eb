/// How the reporters show a step status: the one place to teach them a new status.
struct StatusPresentation {
    /// How a JUnit report counts a step.
    enum JUnitOutcome {
        case passed
        case failure
        case skipped
    }

    /// A colour for the HTML report, as CSS.
    let color: String
    /// An ANSI colour code for the terminal, or `nil` for none.
    let terminalColor: String?
    /// A one-character mark.
    let symbol: String
    /// How a JUnit report counts it.
    let junit: JUnitOutcome
    /// Whether it wants a look: a failure or a warning, whose output the HTML report opens
    /// and whose GitLab section is expanded.
    let isProblem: Bool
}

extension StepStatus {
    /// How the reporters show the status.
    var presentation: StatusPresentation {
        switch self {
        case .pending:
            return StatusPresentation(
                color: "#c3c8ce", terminalColor: nil, symbol: "·", junit: .skipped,
                isProblem: false)
        case .running:
            return StatusPresentation(
                color: "#2f7fd8", terminalColor: "34", symbol: "…", junit: .skipped,
                isProblem: false)
        case .succeeded:
            return StatusPresentation(
                color: "#2e9d4f", terminalColor: "32", symbol: "✓", junit: .passed,
                isProblem: false)
        case .warning:
            return StatusPresentation(
                color: "#d39a00", terminalColor: "33", symbol: "!", junit: .passed,
                isProblem: true)
        case .failed:
            return StatusPresentation(
                color: "#d1372c", terminalColor: "31", symbol: "✗", junit: .failure,
                isProblem: true)
        case .skipped:
            return StatusPresentation(
                color: "#9aa0a6", terminalColor: "33", symbol: "–", junit: .skipped,
                isProblem: false)
        case .cancelled:
            return StatusPresentation(
                color: "#8e5bb5", terminalColor: "31", symbol: "✗", junit: .skipped,
                isProblem: false)
        }
    }
}

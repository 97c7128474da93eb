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
        // Colour, terminal colour, symbol, JUnit outcome, whether it wants a look.
        switch self {
        case .pending: return .init("#c3c8ce", nil, "·", .skipped, false)
        case .running: return .init("#2f7fd8", "34", "…", .skipped, false)
        case .succeeded: return .init("#2e9d4f", "32", "✓", .passed, false)
        case .cached: return .init("#5fb37a", "32", "✓", .passed, false)
        case .warning: return .init("#d39a00", "33", "!", .passed, true)
        case .failed: return .init("#d1372c", "31", "✗", .failure, true)
        case .skipped: return .init("#9aa0a6", "33", "–", .skipped, false)
        case .cancelled: return .init("#8e5bb5", "31", "✗", .skipped, false)
        }
    }
}

extension StatusPresentation {
    /// A row of ``StepStatus/presentation``'s table.
    fileprivate init(
        _ color: String, _ terminalColor: String?, _ symbol: String, _ junit: JUnitOutcome,
        _ isProblem: Bool
    ) {
        self.init(
            color: color, terminalColor: terminalColor, symbol: symbol, junit: junit,
            isProblem: isProblem)
    }
}

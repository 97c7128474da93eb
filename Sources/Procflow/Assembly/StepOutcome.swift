import ProcedureKit

/// What became of a finished step, read off its procedure.
public enum StepOutcome: Sendable, Equatable {
    case succeeded
    /// Did not run: it was up to date; the note says what was put back, if anything.
    case cached(String?)
    case failed(String, stderrTail: [String])
    /// Did not run: its condition was false.
    case skippedByCondition
    /// Did not run, because of other steps.
    case skipped(String)
    /// Stopped from outside: interrupted, or cancelled by `--fail-fast`.
    case cancelled(String)
    /// Skipped because a step it depends on failed, was skipped or gave no output; which one
    /// the runner works out.
    case dependencyProblem
    /// Did not run because its group did not: the group's own outcome says why.
    indirect case groupSkipped(StepOutcome)

    /// Classifies a finished procedure by its error and whether it was cancelled.
    public static func of(_ procedure: Procedure) -> StepOutcome {
        if procedure.error == nil, !procedure.isCancelled {
            if let settled = procedure as? SettledStepProcedure { return .cached(settled.note) }
            if let note = (procedure as? IncrementalStepProcedure)?.cachedNote {
                return .cached(note)
            }
        }
        return classify(error: procedure.error, cancelled: procedure.isCancelled)
    }

    static func classify(error: (any Error)?, cancelled: Bool) -> StepOutcome {
        guard let error else { return cancelled ? .skippedByCondition : .succeeded }
        switch error {
        case is ConditionIsFalse:
            return .skippedByCondition
        case let skip as SkipReason:
            return .skipped(skip.message)
        case let interrupt as InterruptError:
            return .cancelled(interrupt.description)
        case let cancellation as RunCancellation:
            return .cancelled(cancellation.message)
        case let step as StepError:
            return .failed(step.message, stderrTail: step.stderrTail)
        case let library as ProcedureKitError:
            switch library.context {
            case .conditionFailed:
                return .failed(
                    "its condition failed: \(library.error.map { "\($0)" } ?? "no reason given")",
                    stderrTail: [])
            case .dependencyFinishedWithError, .dependencyCancelledWithError,
                .dependenciesCancelled,
                .dependenciesFailed, .requirementNotSatisfied:
                return .dependencyProblem
            case .parentCancelledWithError:
                // A group cancelled without an error was skipped by its condition.
                guard let cause = library.error else { return .groupSkipped(.skippedByCondition) }
                let group = classify(error: cause, cancelled: true)
                switch group {
                case .failed: return .cancelled("its group failed")
                case .cancelled: return group
                default: return .groupSkipped(group)
                }
            case .timedOut(let seconds):
                return .failed("timed out after \(formatDuration(seconds))", stderrTail: [])
            default:
                return .failed(library.description, stderrTail: [])
            }
        default:
            return .failed("\(error)", stderrTail: [])
        }
    }

    /// A failure's reason.
    var reason: String? {
        if case .failed(let reason, _) = self { return reason }
        return nil
    }

    /// Whether the outcome is a failure that should fail the run and skip dependents.
    var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}

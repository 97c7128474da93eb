/// The tasks one step becomes in its DAG, and what their phases say of the step.
///
/// A step is its main task, and maybe a `--prepare` task before it (a pod that works out its
/// inputs and condition with procflow), a `--output` task after it (a pod that checks that a
/// JSON output parses, and says that it arrived) and, for a group, a `--given` gate that holds
/// when the group gave an output. Its dependents read all of them, as procflow reads one
/// step's outcome.
struct StepTasks {
    /// How a step depends on another, which decides which outcomes let it run.
    enum Dependency: String {
        /// Runs if the other succeeded or was skipped by its condition.
        case plain
        /// Runs if the other succeeded, was skipped by its condition, or failed with
        /// `continueOnError`.
        case tolerated
        /// Takes the other's output: runs only if it gave one.
        case data
        /// Reads the output of a group only in a condition: runs if the group succeeded, even
        /// if it gave no output, which the condition then reads as no value — as procflow does.
        case condition
        /// `always`: runs once the other has finished, however it ended.
        case always
    }

    /// The task that does the step's work.
    var main: String
    /// The pod that prepares its inputs and condition.
    var prepare: String?
    /// The pod that checks its output.
    var finisher: String?
    /// For a group with `outputFrom`: the gate that holds when the group gave an output.
    var given: String?
    /// For a `forEach` with `continueOnError`: its instances' failures do not fail it (the
    /// looped main task may fail while the step succeeds, with `null` for them).
    var absorbsFailures = false

    /// Every task, in the order they run.
    var all: [String] {
        [prepare, main, finisher, given].compactMap { $0 }
    }

    /// The step ran and succeeded, its output checked.
    var succeeded: PhaseExpression {
        let ran: PhaseExpression =
            absorbsFailures
            ? .any([.phase(main, .succeeded), .phase(main, .failed), .phase(main, .errored)])
            : .phase(main, .succeeded)
        return PhaseExpression.conjunction(
            [ran] + [finisher].compactMap { $0.map { .phase($0, .succeeded) } })!
    }

    /// The step succeeded and gave its output.
    var gaveOutput: PhaseExpression {
        guard let given else { return succeeded }
        return .all([succeeded, .phase(given, .succeeded)])
    }

    /// The step's condition was false.
    var skipped: PhaseExpression {
        .phase(main, .skipped)
    }

    /// The step failed: its work, the preparation of its inputs, or the check of its output.
    var failed: PhaseExpression {
        .any(
            [absorbsFailures ? nil : main, prepare, finisher].compactMap { $0 }.flatMap {
                [PhaseExpression.phase($0, .failed), .phase($0, .errored)]
            })
    }

    /// Every task of the step has finished.
    var finished: PhaseExpression {
        PhaseExpression.conjunction(all.map(PhaseExpression.finished))!
    }

    /// What lets a step that depends on this one in the way `dependency` says run.
    func allows(_ dependency: Dependency) -> PhaseExpression {
        switch dependency {
        case .plain: return .any([succeeded, skipped])
        case .tolerated: return .any([succeeded, skipped, failed])
        case .data: return gaveOutput
        case .condition: return succeeded
        case .always: return finished
        }
    }
}

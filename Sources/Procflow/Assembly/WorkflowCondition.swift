import Foundation
import ProcedureKit

/// A step's `when`, evaluated as a ProcedureKit condition: false skips the step.
///
/// `all` and `any` evaluate their parts in order and stop at the first that decides. Commands
/// run as the step's commands do — in their own process group, registered with the run — and
/// are bounded by the step's `timeout`; cancelling the step (a timeout, `--fail-fast`, a
/// forwarded signal) tears a running one down with the usual signal and grace period.
final class WorkflowCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: the stored properties are constants; the command that runs lives
    // in `command`, which is Sendable.

    /// What a condition's commands are run with.
    struct Settings: Sendable {
        var environment: [String: String]
        var directory: String
        var gracePeriod: TimeInterval
        var processGroups: ProcessGroups
        /// The step's timeout: how long the condition's commands may take in all.
        var timeout: TimeInterval?
    }

    private let condition: StepCondition
    private let settings: Settings
    /// The procedures the condition's wires read, by id.
    private let sources: [String: any OutputProcedure<JSONValue>]
    private let command: ConditionCommand
    /// Told when an evaluation that began at the date given has ended, before its result is.
    private let onEvaluated: @Sendable (Date) -> Void

    init(
        _ condition: StepCondition, settings: Settings,
        sources: [String: any OutputProcedure<JSONValue>],
        onEvaluated: @escaping @Sendable (Date) -> Void
    ) {
        self.condition = condition
        self.settings = settings
        self.sources = sources
        self.onEvaluated = onEvaluated
        command = ConditionCommand(settings: settings)
        super.init()
        name = "when"
        for source in sources.values { addDependency(source) }
    }

    /// Tears down the command that runs, if one does, because the step was cancelled with
    /// `error`; no further command starts.
    func cancel(with error: (any Error)?) {
        command.cancel(signal: ShellProcedure.interruptSignal(in: error) ?? SIGTERM)
    }

    override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        let started = Date()
        let deadline = settings.timeout.map { started.addingTimeInterval($0) }
        evaluate(condition, deadline: deadline) { [onEvaluated] result in
            onEvaluated(started)
            completion(result)
        }
    }

    private func evaluate(
        _ condition: StepCondition, deadline: Date?,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        switch condition {
        case .environment(let name, let equals):
            let value = settings.environment[name]
            completion(.success(equals.map { value == $0 } ?? !(value ?? "").isEmpty))
        case .exists(let path):
            let exists = FileManager.default.fileExists(
                atPath: resolve(path, in: settings.directory))
            completion(.success(exists))
        case .command(let script):
            command.run(script, deadline: deadline, completion: completion)
        case .output(let wire, let equals):
            let value = sources[wire.from.id]?.output.value?.value
            completion(.success(value.flatMap(wire.selected(from:)) == equals))
        case .not(let inner):
            evaluate(inner, deadline: deadline) { result in
                if case .success(let value) = result {
                    completion(.success(!value))
                } else {
                    completion(result)
                }
            }
        case .all(let parts):
            evaluate(parts[...], until: false, deadline: deadline, completion: completion)
        case .any(let parts):
            evaluate(parts[...], until: true, deadline: deadline, completion: completion)
        }
    }

    /// Evaluates `parts` in order until one gives `decisive` (or fails); the result is that
    /// part's, or the opposite of `decisive` when none gave it.
    private func evaluate(
        _ parts: ArraySlice<StepCondition>, until decisive: Bool, deadline: Date?,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        guard let first = parts.first else { return completion(.success(!decisive)) }
        evaluate(first, deadline: deadline) { [self] result in
            if case .success(let value) = result, value != decisive {
                evaluate(
                    parts.dropFirst(), until: decisive, deadline: deadline, completion: completion)
            } else {
                completion(result)
            }
        }
    }
}

import Foundation
import ProcedureKit

/// A step's `when`, evaluated as a ProcedureKit condition: false skips the step — the
/// condition fails with ``ConditionIsFalse``, which the step's outcome reads as a skip — and
/// an error while evaluating (a command that timed out) fails it with `conditionFailed`.
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
    /// Why the condition was false, once it was: the part that decided it.
    private let reason = Locked<String?>(nil)

    /// Which part of the condition made it false, in words (`env CI is not set`); `nil`
    /// unless it was evaluated false.
    var falseReason: String? { reason.withLock { $0 } }

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
        evaluate(condition, deadline: deadline) { [onEvaluated, reason] result, why in
            switch result {
            case .success(true):
                onEvaluated(started)
                completion(result)
            case .success(false):
                reason.withLock { $0 = why }
                onEvaluated(started)
                completion(.failure(ConditionIsFalse(reason: why)))
            case .failure(let error):
                // ProcedureKit cancels the step with a condition's error as it is: wrapped, it
                // says that the condition failed.
                onEvaluated(started)
                completion(.failure(ProcedureKitError.conditionFailed(with: error)))
            }
        }
    }

    /// Evaluates `condition`; gives its result and, with it, what made it so, in words (for
    /// a false result, what the skip says).
    private func evaluate(
        _ condition: StepCondition, deadline: Date?,
        completion: @escaping @Sendable (ConditionResult, String) -> Void
    ) {
        switch condition {
        case .environment(let name, let equals):
            // The value the file asks for may be said; the one the environment holds is not.
            let value = settings.environment[name]
            if let equals {
                let holds = value == equals
                let quoted = JSONWriter.string(.string(equals))
                completion(.success(holds), "env \(name) is \(holds ? "" : "not ")\(quoted)")
            } else {
                let holds = !(value ?? "").isEmpty
                completion(.success(holds), "env \(name) is \(holds ? "set" : "not set")")
            }
        case .exists(let path):
            let exists = FileManager.default.fileExists(
                atPath: resolve(path, in: settings.directory))
            completion(.success(exists), "\(path) \(exists ? "exists" : "does not exist")")
        case .command(let script):
            let shown = Self.shortened(script)
            command.run(script, deadline: deadline) { result in
                let words: String
                switch result {
                case .success(true): words = "command `\(shown)` exited with status 0"
                case .success(false): words = "command `\(shown)` exited with a non-zero status"
                default: words = "command `\(shown)` failed"
                }
                completion(result, words)
            }
        case .output(let wire, let equals):
            let value = sources[wire.from.id]?.output.value?.value
            let holds = value.flatMap(wire.selected(from:)) == equals
            let place = wire.select.map { "\(wire.from.id) at \($0)" } ?? wire.from.id
            completion(
                .success(holds),
                "the output of \(place) \(holds ? "is" : "is not") \(JSONWriter.string(equals))")
        case .not(let inner):
            evaluate(inner, deadline: deadline) { result, why in
                if case .success(let value) = result {
                    completion(.success(!value), why)
                } else {
                    completion(result, why)
                }
            }
        case .all(let parts):
            evaluate(parts[...], until: false, deadline: deadline, seen: [], completion: completion)
        case .any(let parts):
            evaluate(parts[...], until: true, deadline: deadline, seen: [], completion: completion)
        }
    }

    /// Evaluates `parts` in order until one gives `decisive` (or fails); the result is that
    /// part's, with its words, or the opposite of `decisive` when none gave it, with the words
    /// of every part.
    private func evaluate(
        _ parts: ArraySlice<StepCondition>, until decisive: Bool, deadline: Date?,
        seen: [String], completion: @escaping @Sendable (ConditionResult, String) -> Void
    ) {
        guard let first = parts.first else {
            return completion(.success(!decisive), seen.joined(separator: " and "))
        }
        evaluate(first, deadline: deadline) { [self] result, why in
            if case .success(let value) = result, value != decisive {
                evaluate(
                    parts.dropFirst(), until: decisive, deadline: deadline, seen: seen + [why],
                    completion: completion)
            } else {
                completion(result, why)
            }
        }
    }

    /// A command's text as a reason shows it: its first line, at most 60 characters.
    private static func shortened(_ script: String) -> String {
        let line = script.split(separator: "\n", omittingEmptySubsequences: true).first ?? ""
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let cut = trimmed.count > 60 || script.contains("\n")
        return (cut ? String(trimmed.prefix(60)) + "…" : trimmed).escapingControlCharacters
    }
}

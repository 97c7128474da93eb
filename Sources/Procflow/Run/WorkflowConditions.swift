import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A step's `when`, evaluated as a ProcedureKit condition: false skips the step.
final class WorkflowCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: every stored property is a constant.
    private let condition: StepCondition
    private let environment: [String: String]
    private let directory: String
    /// The procedures the condition's wires read, by id.
    private let sources: [String: any OutputProcedure<JSONValue>]

    init(
        _ condition: StepCondition, environment: [String: String], directory: String,
        sources: [String: any OutputProcedure<JSONValue>]
    ) {
        self.condition = condition
        self.environment = environment
        self.directory = directory
        self.sources = sources
        super.init()
        name = "when"
        for source in sources.values { addDependency(source) }
    }

    override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluate(condition) { completion(.success($0)) }
    }

    private func evaluate(
        _ condition: StepCondition, completion: @escaping @Sendable (Bool) -> Void
    ) {
        switch condition {
        case .environment(let name, let equals):
            let value = environment[name]
            completion(equals.map { value == $0 } ?? !(value ?? "").isEmpty)
        case .exists(let path):
            completion(FileManager.default.fileExists(atPath: resolve(path, in: directory)))
        case .command(let script):
            let launch = ProcessRun.Launch(
                executable: "/bin/sh", arguments: ["/bin/sh", "-c", script],
                environment: environment,
                workingDirectory: directory, stdin: nil, captureStdout: false, captureLimit: 0,
                gracePeriod: 5,
                pipeGracePeriod: 0.2, onOutput: nil)
            do {
                _ = try ProcessRun.start(launch) { outcome in
                    completion(outcome.termination == .exited(0))
                }
            } catch {
                completion(false)
            }
        case .output(let wire, let equals):
            let value = sources[wire.from.id]?.output.value?.value
            completion(value.flatMap { select(wire.select, from: $0) } == equals)
        case .not(let inner):
            evaluate(inner) { completion(!$0) }
        case .all(let parts), .any(let parts):
            let isAll: Bool
            if case .all = condition { isAll = true } else { isAll = false }
            let results = Locked(
                (values: [Bool?](repeating: nil, count: parts.count), remaining: parts.count))
            for (index, part) in parts.enumerated() {
                evaluate(part) { value in
                    let all = results.withLock { state -> [Bool]? in
                        state.values[index] = value
                        state.remaining -= 1
                        return state.remaining == 0 ? state.values.map { $0! } : nil
                    }
                    guard let all else { return }
                    completion(isAll ? all.allSatisfy { $0 } : all.contains(true))
                }
            }
        }
    }
}

/// Skips a step when a step it depends on failed, or when a step it takes data from did not
/// run: the rule that failures stop dependents, and skips stop those that need the data.
/// Set once `--fail-fast` stops a run: why it stopped.
final class FailFastStop: Sendable {
    private let cause = Locked<RunCancellation?>(nil)

    /// Records the stop; false if the run had already stopped.
    func stop(_ cancellation: RunCancellation) -> Bool {
        cause.withLock { cause in
            guard cause == nil else { return false }
            cause = cancellation
            return true
        }
    }

    var cancellation: RunCancellation? { cause.withLock { $0 } }
}

/// Keeps a step that is not `always` from starting once `--fail-fast` has stopped the run
/// (steps already built are cancelled directly; this catches those a branch builds later).
final class FailFastCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: every stored property is a constant.
    private let stop: FailFastStop

    init(_ stop: FailFastStop) {
        self.stop = stop
        super.init()
        name = "fail-fast"
    }

    override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        if let cancellation = stop.cancellation {
            completion(.failure(cancellation))
        } else {
            completion(.success(true))
        }
    }
}

final class DependencyOutcomeCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: every stored property is a constant.
    struct Dependency {
        let id: String
        let procedure: Procedure
        /// Whether the step takes this dependency's output.
        let takesData: Bool
        /// Whether the dependency's failures are only warnings.
        let tolerated: Bool
    }

    private let watched: [Dependency]

    init(_ dependencies: [Dependency]) {
        watched = dependencies
        super.init()
        name = "dependencies"
    }

    override func evaluate(
        procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        if let reason = Self.reason(watched) {
            completion(.failure(SkipReason(reason)))
        } else {
            completion(.success(true))
        }
    }

    /// Why a step with these dependencies must not run, if it must not.
    static func reason(_ dependencies: [Dependency]) -> String? {
        for dependency in dependencies {
            let outcome = StepOutcome.of(dependency.procedure)
            switch outcome {
            case .failed:
                if !dependency.tolerated { return "dependency \(dependency.id) failed" }
                if dependency.takesData {
                    return "dependency \(dependency.id) failed, so it gave no output"
                }
            case .dependencyProblem:
                return "dependency \(dependency.id) was skipped"
            case .cancelled:
                return "dependency \(dependency.id) was cancelled"
            case .skippedByCondition:
                // A false condition stops only those that need the data.
                if dependency.takesData { return "dependency \(dependency.id) was skipped" }
            case .skipped:
                // A skip caused by a failure stops everything downstream.
                return "dependency \(dependency.id) was skipped"
            case .succeeded:
                break
            }
        }
        return nil
    }
}

/// `path` made absolute, relative to `directory`.
func resolve(_ path: String, in directory: String) -> String {
    guard !path.hasPrefix("/") else { return path }
    let base =
        directory.hasPrefix("/")
        ? directory : FileManager.default.currentDirectoryPath + "/" + directory
    // Lexically, as URL.standardizedFileURL does, without its cost (a command's working
    // directory is resolved for every shell step).
    var components: [Substring] = []
    for component in (base + "/" + path).split(separator: "/") {
        switch component {
        case ".": continue
        case "..": _ = components.popLast()
        default: components.append(component)
        }
    }
    return "/" + components.joined(separator: "/")
}

/// The part of `value` a wire selects, or all of it.
func select(_ pointer: JSONPointer?, from value: JSONValue) -> JSONValue? {
    guard let pointer else { return value }
    return value.value(at: pointer)
}

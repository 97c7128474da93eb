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
            completion(value.flatMap(wire.selected(from:)) == equals)
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

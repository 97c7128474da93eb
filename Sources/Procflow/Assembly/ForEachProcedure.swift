import Foundation
import ProcedureKit

/// A `forEach` step: a `BatchProcedure` that makes one instance of the step per item, as
/// children added while it runs, and gives the array of their outputs, in item order.
///
/// The items are the file's (a list, a matrix's combinations) or the JSON array wired in as
/// this procedure's input. An instance that fails fails the step once every instance has
/// finished (unless the step continues on error); one that gives no value (skipped, or failed
/// and tolerated) stands as `null` in the output.
final class ForEachProcedure: StepGroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: the stored properties are constants.

    /// One item's instance: a group around the instance's own procedure, giving its output.
    typealias Instance = StepGroupProcedure

    private let batch: BatchProcedure<Instance>
    private let items: [JSONValue]?
    private let id: String

    /// - Parameters:
    ///   - items: the file's items, or `nil` to take them from the input.
    ///   - tolerated: whether an instance's failure is only a warning.
    ///   - makeInstance: makes the instance for item number `index`.
    init(
        id: String, items: [JSONValue]?, tolerated: Bool,
        makeInstance: @escaping @Sendable (_ index: Int, _ item: JSONValue) -> Instance
    ) {
        self.id = id
        self.items = items
        batch = BatchProcedure(
            failureRule: { index, _, error in
                guard let error, !tolerated else { return .substitute(.null) }
                return .fail(
                    ForEachFailure(instance: ForEach.instanceID(of: id, at: index), error: error))
            }, via: makeInstance)
        batch.name = id
        super.init(children: [batch], tolerated: [])
    }

    override func execute() {
        if let items {
            batch.input = .ready(items)
        } else {
            guard case .array(let items)? = input.value else {
                let found = input.value?.typeDescription ?? "nothing"
                return finish(
                    with: StepError(
                        .input, "forEach needs a list of items, and the wire gave \(found)"))
            }
            guard items.count <= Workflow.maximumInstancesPerForEach else {
                let limit = formatCount(Workflow.maximumInstancesPerForEach)
                return finish(
                    with: StepError(
                        .input,
                        "the wire gave \(formatCount(items.count)) items; a forEach makes at most \(limit) instances"
                    ))
            }
            batch.input = .ready(items)
        }
        super.execute()
    }

    override func procedureWillFinish(with error: (any Error)?) {
        super.procedureWillFinish(with: error)
        if error == nil, case .ready(.success(let outputs)) = batch.output {
            output = .ready(.success(.array(outputs)))
        }
    }
}

/// Why a `forEach` step failed: one of its instances did.
struct ForEachFailure: Error, CustomStringConvertible {
    let instance: String
    let error: any Error

    var description: String {
        "\(instance) failed: \(StepOutcome.classify(error: error, cancelled: false).reason ?? "\(error)")"
    }
}

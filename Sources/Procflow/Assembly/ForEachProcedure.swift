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
    private let naming: @Sendable ([JSONValue]) -> [String]
    private let only: Set<Int>?
    /// Once the items are known: the number and the name of the item of each instance, in
    /// the batch's order.
    private let instances: Locked<[(index: Int, name: String)]>

    /// - Parameters:
    ///   - items: the file's items, or `nil` to take them from the input.
    ///   - only: the numbers of the only items to make instances of, if not all.
    ///   - tolerated: whether an instance's failure is only a warning.
    ///   - naming: what the instances of the items are called.
    ///   - makeInstance: makes the instance for item number `index`, called `name`.
    init(
        id: String, items: [JSONValue]?, only: Set<Int>? = nil, tolerated: Bool,
        naming: @escaping @Sendable ([JSONValue]) -> [String],
        makeInstance:
            @escaping @Sendable (_ index: Int, _ item: JSONValue, _ name: String) ->
            Instance
    ) {
        self.id = id
        self.items = items
        self.only = only
        self.naming = naming
        let instances = Locked([(index: Int, name: String)]())
        self.instances = instances
        @Sendable func instance(_ position: Int) -> (index: Int, name: String) {
            instances.withLock { $0.indices.contains(position) ? $0[position] : nil }
                ?? (position, ForEach.instanceID(of: id, at: position))
        }
        batch = BatchProcedure(
            failureRule: { position, _, error in
                guard let error, !tolerated else { return .substitute(.null) }
                return .fail(ForEachFailure(instance: instance(position).name, error: error))
            },
            via: { position, item in
                let (index, name) = instance(position)
                return makeInstance(index, item, name)
            })
        batch.name = id
        super.init(children: [batch], tolerated: [])
    }

    override func execute() {
        if let items {
            batch.input = .ready(choose(items))
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
            batch.input = .ready(choose(items))
        }
        super.execute()
    }

    /// Names the instances of `items`; returns those to make.
    private func choose(_ items: [JSONValue]) -> [JSONValue] {
        let names = naming(items)
        let chosen = items.indices.filter { only?.contains($0) ?? true }
        instances.withLock { $0 = chosen.map { ($0, names[$0]) } }
        return chosen.map { items[$0] }
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

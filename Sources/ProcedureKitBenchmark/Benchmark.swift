import Dispatch
import Foundation
import ProcedureKit

/// Measures ProcedureKit's scheduler against Foundation's `OperationQueue` on the same shapes,
/// in the same run: N independent no-op operations, a chain of N, and a fan-in of N into one.
/// Then groups and result injection: a group of N children, a chain of N injecting
/// `TransformProcedure`s, a `BatchProcedure` over N elements, and groups nested 10,000 deep.
///
/// Each figure covers building the operations, running them to completion (two at once in the
/// first table) and releasing them. Usage: `ProcedureKitBenchmark [--only SHAPE] [N ...]`
/// (default 1000 10000 100000 1000000; the group table stops at 100000). `--only` runs
/// ProcedureKit alone on the one row named, such as `chain` or `injection chain`, to compare
/// builds of the library shape by shape (under callgrind, for example).
@main
struct Benchmark {
    enum Shape: String, CaseIterable {
        case flat = "independent"
        case chain
        case fanIn = "fan-in"
    }

    /// Foundation's OperationQueue schedules chains in super-linear time, crashes releasing a
    /// 100k chain, and its `addDependency` scans the existing dependencies, so a fan-in is
    /// quadratic: above these sizes it is not measured.
    static let foundationLimits: [Shape: Int] = [.flat: 1_000_000, .chain: 20_000, .fanIn: 20_000]

    /// The one row to run (`--only`), or `nil` for all.
    nonisolated(unsafe) static var only: String?

    static func runs(_ row: String) -> Bool { only == nil || only == row }

    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let flag = arguments.firstIndex(of: "--only") {
            guard flag + 1 < arguments.count else {
                print("ProcedureKitBenchmark: --only needs a shape, such as `chain`")
                exit(2)
            }
            only = arguments[flag + 1]
            arguments.removeSubrange(flag...(flag + 1))
        }
        let sizes = arguments.compactMap { Int($0) }
        let counts = sizes.isEmpty ? [1_000, 10_000, 100_000, 1_000_000] : sizes
        print(
            "| shape | N | ProcedureKit | per procedure | Foundation OperationQueue | per operation |"
        )
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for shape in Shape.allCases where runs(shape.rawValue) {
            for count in counts {
                let ours = measure(count: count) { runProcedureKit(shape, count: count) }
                var row =
                    "| \(shape.rawValue) | \(count) | \(rate(count, ours)) | \(cost(count, ours)) |"
                if only == nil, count <= foundationLimits[shape]! {
                    let theirs = measure(count: count) { runFoundation(shape, count: count) }
                    row += " \(rate(count, theirs)) | \(cost(count, theirs)) |"
                } else {
                    row += " not run | |"
                }
                print(row)
            }
        }
        print()
        print("| shape | N | ProcedureKit | per item |")
        print("| --- | ---: | ---: | ---: |")
        for count in counts where count <= 100_000 && runs("group children") {
            let group = measure(count: count) { runGroup(children: count) }
            print("| group children | \(count) | \(rate(count, group)) | \(cost(count, group)) |")
        }
        for count in counts where count <= 100_000 && runs("injection chain") {
            let chain = measure(count: count) { runInjectionChain(count: count) }
            print("| injection chain | \(count) | \(rate(count, chain)) | \(cost(count, chain)) |")
        }
        for count in counts where count <= 100_000 && runs("batch elements") {
            let batch = measure(count: count) { runBatch(elements: count) }
            print("| batch elements | \(count) | \(rate(count, batch)) | \(cost(count, batch)) |")
        }
        guard runs("nested groups") else { return }
        let depth = 10_000
        let nested = measure(count: 100_000) { runNestedGroups(depth: depth) }
        print("| nested groups | \(depth) deep | \(rate(depth, nested)) | \(cost(depth, nested)) |")
    }

    /// The median time of a few runs of `body`; fewer runs for larger counts.
    static func measure(count: Int, _ body: () -> Void) -> Double {
        let runs = count <= 10_000 ? 15 : (count <= 100_000 ? 5 : 1)
        body()  // warm up
        var times: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return times.sorted()[times.count / 2]
    }

    static func rate(_ count: Int, _ seconds: Double) -> String {
        let perSecond = Double(count) / seconds
        return perSecond >= 1e6
            ? String(format: "%.2fM/s", perSecond / 1e6)
            : String(format: "%.0fk/s", perSecond / 1e3)
    }

    static func cost(_ count: Int, _ seconds: Double) -> String {
        String(format: "%.2f µs", seconds / Double(count) * 1e6)
    }

    static func runProcedureKit(_ shape: Shape, count: Int) {
        let queue = ProcedureQueue(maxConcurrentOperationCount: 2)
        var procedures: [Procedure] = []
        procedures.reserveCapacity(count + 1)
        for _ in 0..<count { procedures.append(NoOpProcedure()) }
        switch shape {
        case .flat:
            break
        case .chain:
            for index in 1..<count { procedures[index].addDependency(procedures[index - 1]) }
        case .fanIn:
            let sink = NoOpProcedure()
            for procedure in procedures { sink.addDependency(procedure) }
            procedures.append(sink)
        }
        queue.addOperations(procedures)
        queue.waitUntilAllOperationsAreFinished()
        procedures.removeAll()
    }

    static func runFoundation(_ shape: Shape, count: Int) {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        var operations: [Operation] = []
        operations.reserveCapacity(count + 1)
        for _ in 0..<count { operations.append(BlockOperation {}) }
        switch shape {
        case .flat:
            break
        case .chain:
            for index in 1..<count { operations[index].addDependency(operations[index - 1]) }
        case .fanIn:
            let sink = BlockOperation {}
            for operation in operations { sink.addDependency(operation) }
            operations.append(sink)
        }
        queue.addOperations(operations, waitUntilFinished: true)
        operations.removeAll()
    }
}

extension Benchmark {
    static func runGroup(children count: Int) {
        let queue = ProcedureQueue()
        let group = GroupProcedure(operations: (0..<count).map { _ in NoOpProcedure() })
        queue.addOperation(group)
        queue.waitUntilAllOperationsAreFinished()
    }

    static func runInjectionChain(count: Int) {
        let queue = ProcedureQueue(maxConcurrentOperationCount: 2)
        let source = ResultProcedure { 0 }
        var procedures: [Procedure] = [source]
        procedures.reserveCapacity(count + 1)
        var previous = TransformProcedure<Int, Int> { $0 + 1 }.injectResult(from: source)
        procedures.append(previous)
        for _ in 1..<count {
            let next = TransformProcedure<Int, Int> { $0 + 1 }.injectResult(from: previous)
            procedures.append(next)
            previous = next
        }
        queue.addOperations(procedures)
        queue.waitUntilAllOperationsAreFinished()
        precondition(previous.output.value?.value == count, "the chain computed a wrong value")
    }

    /// A batch of N elements, one `TransformProcedure` each, its output gathered in order.
    static func runBatch(elements count: Int) {
        let queue = ProcedureQueue()
        let batch = BatchProcedure<TransformProcedure<Int, Int>> { _, _ in
            TransformProcedure { $0 * 2 }
        }
        batch.input = .ready(Array(0..<count))
        queue.addOperation(batch)
        queue.waitUntilAllOperationsAreFinished()
        precondition(batch.output.value?.value?.count == count, "the batch lost elements")
    }

    static func runNestedGroups(depth: Int) {
        let queue = ProcedureQueue()
        var group = GroupProcedure(operations: [NoOpProcedure()])
        for _ in 1..<depth { group = GroupProcedure(operations: [group]) }
        queue.addOperation(group)
        queue.waitUntilAllOperationsAreFinished()
    }
}

/// A procedure that finishes as soon as it executes.
final class NoOpProcedure: Procedure, @unchecked Sendable {
    override func execute() {
        finish()
    }
}

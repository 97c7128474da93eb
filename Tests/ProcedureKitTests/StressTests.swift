import Dispatch
import Foundation
import Synchronization
import Testing

@testable import ProcedureKit

/// A deterministic random number generator (SplitMix64), so a failing run can be repeated.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Shared bookkeeping for the stress run.
final class StressLedger: Sendable {
    let categoryHolders = Locked([0, 0, 0, 0])
    let categoryViolations = Atomic<Int>(0)
    let orderViolations = Atomic<Int>(0)
    let executions = Atomic<Int>(0)
}

/// Checks, as it executes, that its dependencies have finished and that nobody else holds its
/// category.
final class StressProcedure: Procedure, @unchecked Sendable {
    let ledger: StressLedger
    let category: Int?
    let finishes = Atomic<Int>(0)

    init(ledger: StressLedger, category: Int?) {
        self.ledger = ledger
        self.category = category
        super.init()
    }

    override func execute() {
        ledger.executions.add(1, ordering: .relaxed)
        if dependencies.contains(where: { !$0.isFinished }) {
            ledger.orderViolations.add(1, ordering: .relaxed)
        }
        if let category {
            let holders = ledger.categoryHolders.withLock {
                $0[category] += 1
                return $0[category]
            }
            if holders > 1 { ledger.categoryViolations.add(1, ordering: .relaxed) }
            sched_yield()
            ledger.categoryHolders.withLock { $0[category] -= 1 }
        }
        finish()
    }
}

@Suite("Stress")
struct StressTests {

    @Test func randomGraphsWithCancellationsAndCategories() {
        let count = 100_000
        var random = SeededGenerator(state: 20_261_121)
        let ledger = StressLedger()
        let categories = (0..<4).map { "stress-\($0)-\(UUID().uuidString)" }
        var procedures: [StressProcedure] = []
        procedures.reserveCapacity(count)
        for index in 0..<count {
            let category =
                Int.random(in: 0..<16, using: &random) < 4
                ? Int.random(in: 0..<4, using: &random) : nil
            let procedure = StressProcedure(ledger: ledger, category: category)
            if let category {
                procedure.addCondition(
                    MutuallyExclusive<StressProcedure>(category: categories[category]))
            }
            if index > 0 {
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    let lower = max(0, index - 1000)
                    procedure.addDependency(
                        procedures[Int.random(in: lower..<index, using: &random)])
                }
            }
            procedure.addDidFinishBlockObserver { procedure, _ in
                procedure.finishes.add(1, ordering: .relaxed)
            }
            procedures.append(procedure)
        }
        // Some are cancelled before they are queued, some while the queue runs.
        var cancelledLater: [Procedure] = []
        for procedure in procedures where Int.random(in: 0..<100, using: &random) < 5 {
            if Bool.random(using: &random) {
                procedure.cancel()
            } else {
                cancelledLater.append(procedure)
            }
        }
        let queue = ProcedureQueue(maxConcurrentOperationCount: 4)
        let batches = stride(from: 0, to: count, by: 10_000).map {
            Array(procedures[$0..<min($0 + 10_000, count)])
        }
        DispatchQueue.global().async { [cancelledLater] in
            for procedure in cancelledLater { procedure.cancel(with: TestError()) }
        }
        for batch in batches { queue.addOperations(batch) }
        waitUntilIdle(queue, timeout: 300)

        let unfinished = procedures.filter { !$0.isFinished }.count
        let finishedTwice = procedures.filter { $0.finishes.load(ordering: .relaxed) != 1 }.count
        #expect(unfinished == 0)
        #expect(finishedTwice == 0)
        #expect(ledger.orderViolations.load(ordering: .relaxed) == 0)
        #expect(ledger.categoryViolations.load(ordering: .relaxed) == 0)
        let executed = ledger.executions.load(ordering: .relaxed)
        let cancelled = procedures.filter(\.isCancelled).count
        #expect(executed + cancelled >= count)
        #expect(executed > count / 2)
    }
}

@Suite("Group stress")
struct GroupStressTests {

    @Test func thousandGroupsOfInjectionChainsWithRandomCancellations() {
        let groupCount = 1_000
        let chainLength = 100
        var random = SeededGenerator(state: 31_337)
        let queue = ProcedureQueue()
        var sources: [Procedure] = []
        var groups: [BoundGroup<Int, Int>] = []
        let finishCounts = Locked([Int](repeating: 0, count: groupCount))
        var tampered = Set<Int>()
        var toCancel: [Procedure] = []
        for index in 0..<groupCount {
            let source = ResultProcedure { index }
            var chain: [TransformProcedure<Int, Int>] = []
            for position in 0..<chainLength {
                let stage = TransformProcedure<Int, Int> { $0 + 1 }
                if position > 0 { stage.injectResult(from: chain[position - 1]) }
                chain.append(stage)
            }
            let group = BoundGroup<Int, Int>(operations: chain)
            group.bind(to: chain[0])
            group.bind(from: chain[chainLength - 1])
            group.injectResult(from: source)
            group.addDidFinishBlockObserver { _, _ in finishCounts.withLock { $0[index] += 1 } }
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<10:
                toCancel.append(group)
                tampered.insert(index)
            case 10..<15:
                toCancel.append(chain[Int.random(in: 0..<chainLength, using: &random)])
                tampered.insert(index)
            default:
                break
            }
            sources.append(source)
            groups.append(group)
        }
        DispatchQueue.global().async { [toCancel] in
            for procedure in toCancel.shuffled() {
                procedure.cancel()
                usleep(50)
            }
        }
        for index in 0..<groupCount { queue.addOperations(sources[index], groups[index]) }
        waitUntilIdle(queue, timeout: 300)

        let counts = finishCounts.withLock { $0 }
        #expect(counts.allSatisfy { $0 == 1 })
        var wrong: [String] = []
        for (index, group) in groups.enumerated() {
            let value = group.output.value?.value
            if group.status == .finished {
                if value != index + chainLength {
                    wrong.append("\(index): output \(String(describing: value))")
                }
            } else if !tampered.contains(index) {
                wrong.append("\(index): \(group.status), \(String(describing: group.error))")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        let succeeded = groups.filter { $0.status == .finished }.count
        #expect(succeeded >= groupCount - tampered.count)
    }
}

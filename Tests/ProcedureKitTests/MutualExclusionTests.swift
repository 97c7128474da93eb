import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// Tracks which procedures hold a category, failing if two ever do at once.
final class CategoryProbe: Sendable {
    private let state = Locked((holders: 0, violations: 0))
    let order = Recorder<String>()

    var violations: Int { state.withLock { $0.violations } }

    func procedure(_ name: String, category: String, holdingFor microseconds: UInt32 = 1000)
        -> Procedure
    {
        let procedure = BlockProcedure { [self] in
            state.withLock {
                $0.holders += 1
                if $0.holders > 1 { $0.violations += 1 }
            }
            order.append(name)
            usleep(microseconds)
            state.withLock { $0.holders -= 1 }
        }
        procedure.name = name
        procedure.addCondition(MutuallyExclusive<Procedure>(category: category))
        return procedure
    }
}

@Suite("Mutual exclusion")
struct MutualExclusionTests {

    @Test func proceduresSharingACategoryNeverExecuteAtOnceAndGoInOrder() {
        let category = uniqueCategory()
        let probe = CategoryProbe()
        let queue = ProcedureQueue()
        queue.addOperations((0..<20).map { probe.procedure("\($0)", category: category) })
        waitUntilIdle(queue)
        #expect(probe.violations == 0)
        #expect(probe.order.all == (0..<20).map { "\($0)" })
    }

    @Test func exclusionHoldsAcrossQueues() {
        let category = uniqueCategory()
        let probe = CategoryProbe()
        let queues = (0..<3).map { _ in ProcedureQueue() }
        for round in 0..<10 {
            for (index, queue) in queues.enumerated() {
                queue.addOperation(probe.procedure("\(round)-\(index)", category: category))
            }
        }
        for queue in queues { waitUntilIdle(queue) }
        #expect(probe.violations == 0)
        #expect(probe.order.count == 30)
    }

    @Test func differentCategoriesRunSideBySide() {
        let queue = ProcedureQueue()
        let procedures = (0..<2).map { index -> HeldProcedure in
            let procedure = HeldProcedure()
            procedure.addCondition(
                MutuallyExclusive<Procedure>(category: uniqueCategory() + "\(index)"))
            return procedure
        }
        queue.addOperations(procedures)
        // Both start before either is released: they hold their categories at the same time.
        for procedure in procedures {
            #expect(procedure.started.wait(timeout: .now() + 10) == .success)
        }
        for procedure in procedures { procedure.release() }
        waitUntilIdle(queue)
    }

    @Test func theTypeIsTheDefaultCategory() {
        struct Alert {}
        struct Sound {}
        #expect(MutuallyExclusive<Alert>().category == MutuallyExclusive<Alert>().category)
        #expect(MutuallyExclusive<Alert>().category != MutuallyExclusive<Sound>().category)
        #expect(
            MutuallyExclusive<Alert>().mutuallyExclusiveCategories == [
                MutuallyExclusive<Alert>().category
            ])
    }

    @Test func overlappingCategorySetsDoNotDeadlock() {
        let a = uniqueCategory() + "a"
        let b = uniqueCategory() + "b"
        let c = uniqueCategory() + "c"
        let queue = ProcedureQueue()
        let sets = [[a, b], [b, c], [c, a], [a], [b], [c], [a, b, c]]
        var procedures: [Procedure] = []
        for round in 0..<20 {
            for categories in sets {
                let procedure = BlockProcedure { usleep(200) }
                procedure.name = "\(round) \(categories)"
                for category in categories {
                    procedure.addCondition(MutuallyExclusive<Procedure>(category: category))
                }
                procedures.append(procedure)
            }
        }
        queue.addOperations(procedures.shuffled())
        waitUntilIdle(queue)
        #expect(procedures.allSatisfy { $0.isFinished && $0.error == nil })
    }

    @Test func cancellingAWaitingProcedurePassesTheCategoryOn() {
        let category = uniqueCategory()
        let holder = HeldProcedure()
        holder.addCondition(MutuallyExclusive<Procedure>(category: category))
        let waiting = TestProcedure(name: "waiting")
        waiting.addCondition(MutuallyExclusive<Procedure>(category: category))
        let next = TestProcedure(name: "next")
        next.addCondition(MutuallyExclusive<Procedure>(category: category))
        let queue = ProcedureQueue()
        queue.addOperation(holder)
        holder.started.wait()
        queue.addOperations(waiting, next)
        usleep(10_000)
        waiting.cancel()
        waitForFinish(waiting)
        #expect(!next.isFinished)
        holder.release()
        waitUntilIdle(queue)
        #expect(!waiting.didExecute)
        #expect(next.didExecute)
    }

    @Test func aFailedConditionDoesNotTakeTheCategory() {
        let category = uniqueCategory()
        let skipped = TestProcedure()
        skipped.addCondition(MutuallyExclusive<Procedure>(category: category))
        skipped.addCondition(FalseCondition())
        let after = TestProcedure()
        after.addCondition(MutuallyExclusive<Procedure>(category: category))
        after.addDependency(skipped)
        let queue = ProcedureQueue()
        queue.addOperations(skipped, after)
        waitUntilIdle(queue)
        #expect(!skipped.didExecute)
        #expect(after.didExecute)
    }
}

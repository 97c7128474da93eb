import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

/// Counts how many procedures of a category execute at once, keeping the highest count.
final class LimitProbe: Sendable {
    private let state = Locked((running: 0, highest: 0))

    var highest: Int { state.withLock { $0.highest } }

    func procedure(category: String, limit: Int) -> Procedure {
        let procedure = BlockProcedure { [self] in
            state.withLock {
                $0.running += 1
                $0.highest = max($0.highest, $0.running)
            }
            usleep(2000)
            state.withLock { $0.running -= 1 }
        }
        procedure.addCondition(ConcurrencyLimit(category: category, limit: limit))
        return procedure
    }
}

@Suite("Concurrency limit")
struct ConcurrencyLimitTests {

    @Test(arguments: [1, 2, 3])
    func noMoreThanTheLimitExecuteAtOnceAcrossQueues(limit: Int) {
        let category = uniqueCategory() + "\(limit)"
        let probe = LimitProbe()
        let queues = (0..<4).map { _ in ProcedureQueue() }
        for _ in 0..<10 {
            for queue in queues {
                queue.addOperation(probe.procedure(category: category, limit: limit))
            }
        }
        for queue in queues { waitUntilIdle(queue) }
        #expect(probe.highest <= limit)
    }

    @Test func theLimitIsReachedWhenWorkAllows() {
        // Three gated procedures with a limit of two: two start, the third waits for a place.
        let category = uniqueCategory()
        let queue = ProcedureQueue()
        let procedures = (0..<3).map { _ -> HeldProcedure in
            let procedure = HeldProcedure()
            procedure.addCondition(ConcurrencyLimit(category: category, limit: 2))
            return procedure
        }
        queue.addOperations(procedures)
        #expect(procedures[0].started.wait(timeout: .now() + 10) == .success)
        #expect(procedures[1].started.wait(timeout: .now() + 10) == .success)
        #expect(procedures[2].started.wait(timeout: .now() + 0.3) == .timedOut)
        procedures[0].release()
        #expect(procedures[2].started.wait(timeout: .now() + 10) == .success)
        procedures[1].release()
        procedures[2].release()
        waitUntilIdle(queue)
    }

    @Test func aWeightedProcedureTakesThatManyPlaces() {
        // Limit 3: a procedure of weight 2 and one of weight 1 fill it; the next of weight 2
        // waits, and so does a procedure of weight 1 behind it (first come, first served),
        // until the first one's two places are given back.
        let category = uniqueCategory()
        let queue = ProcedureQueue()
        let weights = [2, 1, 2, 1]
        let procedures = weights.map { weight -> HeldProcedure in
            let procedure = HeldProcedure()
            procedure.addCondition(ConcurrencyLimit(category: category, limit: 3, weight: weight))
            return procedure
        }
        for procedure in procedures { queue.addOperation(procedure) }
        #expect(procedures[0].started.wait(timeout: .now() + 10) == .success)
        #expect(procedures[1].started.wait(timeout: .now() + 10) == .success)
        #expect(procedures[2].started.wait(timeout: .now() + 0.3) == .timedOut)
        #expect(procedures[3].started.wait(timeout: .now()) == .timedOut)
        procedures[0].release()
        #expect(procedures[2].started.wait(timeout: .now() + 10) == .success)
        #expect(procedures[3].started.wait(timeout: .now() + 0.3) == .timedOut)
        procedures[1].release()
        #expect(procedures[3].started.wait(timeout: .now() + 10) == .success)
        procedures[2].release()
        procedures[3].release()
        waitUntilIdle(queue)
    }

    @Test func aLimitIsNamedByItsCategoryAndPlacesUnlessNamedOtherwise() {
        #expect(ConcurrencyLimit(category: "cores", limit: 4).name == "ConcurrencyLimit<cores, 4>")
        #expect(
            ConcurrencyLimit(category: "cores", limit: 4, weight: 2).name
                == "ConcurrencyLimit<cores, 2 of 4>")
        let named = ConcurrencyLimit(category: "cores", limit: 4)
        named.name = "build slots"
        #expect(named.name == "build slots")
    }

    @Test func aWeightOverTheLimitTakesEveryPlace() {
        let category = uniqueCategory()
        let queue = ProcedureQueue()
        let heavy = HeldProcedure()
        heavy.addCondition(ConcurrencyLimit(category: category, limit: 2, weight: 8))
        let light = HeldProcedure()
        light.addCondition(ConcurrencyLimit(category: category, limit: 2))
        queue.addOperation(heavy)
        #expect(heavy.started.wait(timeout: .now() + 10) == .success)
        queue.addOperation(light)
        #expect(light.started.wait(timeout: .now() + 0.3) == .timedOut)
        heavy.release()
        #expect(light.started.wait(timeout: .now() + 10) == .success)
        light.release()
        waitUntilIdle(queue)
    }

    @Test func limitsAndMutualExclusionTogetherDoNotDeadlock() {
        let limited = uniqueCategory() + "limit"
        let exclusive = uniqueCategory() + "mutex"
        let probe = CategoryProbe()
        let queue = ProcedureQueue()
        let procedures = (0..<30).map { index -> Procedure in
            let procedure = probe.procedure("\(index)", category: exclusive, holdingFor: 200)
            procedure.addCondition(ConcurrencyLimit(category: limited, limit: 2))
            return procedure
        }
        let others = LimitProbe()
        queue.addOperations(
            procedures + (0..<30).map { _ in others.procedure(category: limited, limit: 2) })
        waitUntilIdle(queue)
        #expect(probe.violations == 0)
        #expect(probe.order.count == 30)
        #expect(procedures.allSatisfy { $0.isFinished })
    }

    @Test func aCancelledWaiterGivesUpItsTurn() {
        let category = uniqueCategory()
        let queue = ProcedureQueue()
        let holder = HeldProcedure()
        holder.addCondition(ConcurrencyLimit(category: category, limit: 1))
        let waiter = HeldProcedure()
        waiter.addCondition(ConcurrencyLimit(category: category, limit: 1))
        let next = BlockProcedure {}
        next.addCondition(ConcurrencyLimit(category: category, limit: 1))
        queue.addOperation(holder)
        #expect(holder.started.wait(timeout: .now() + 10) == .success)
        queue.addOperations(waiter, next)
        usleep(100_000)
        waiter.cancel()
        holder.release()
        waitUntilIdle(queue)
        #expect(next.isFinished && !next.isCancelled)
    }
}

import Foundation
import Testing

@testable import ProcedureKit

/// The first `count` elements of `iterator`.
private func first<I: IteratorProtocol>(_ count: Int, of iterator: I) -> [I.Element?] {
    var iterator = iterator
    return (0..<count).map { _ in iterator.next() }
}

/// The original's IteratorTests, and the other iterators a repeat is made with.
@Suite("Iterators")
struct IteratorTests {

    @Test func aFiniteIteratorStopsAtItsLimit() {
        let iterator = FiniteIterator(
            AnyIterator(stride(from: 0, to: 10, by: 1).makeIterator()), limit: 2)
        #expect(first(3, of: iterator) == [0, 1, nil])
    }

    @Test func aFiniteIteratorEndsWithItsBase() {
        #expect(first(3, of: FiniteIterator([7].makeIterator(), limit: 5)) == [7, nil, nil])
    }

    @Test func aCountingIteratorHandsItsBlockTheIndex() {
        var iterator = CountingIterator { $0 < 3 ? $0 * 10 : nil }
        #expect(iterator.count == 0)
        #expect(iterator.next() == 0)
        #expect(iterator.next() == 10)
        #expect(iterator.count == 2)
        #expect(iterator.next() == 20)
        #expect(iterator.next() == nil)
    }

    @Test func aMapIteratorTransformsEachElement() {
        let iterator = MapIterator([1, 2].makeIterator()) { "\($0)" }
        #expect(first(3, of: iterator) == ["1", "2", nil])
    }

    @Test func aPairIteratorEndsWithItsPrimary() {
        var iterator = PairIterator(
            primary: [1, 2, 3].makeIterator(), secondary: ["a"].makeIterator())
        let first = iterator.next()
        #expect(first?.0 == 1 && first?.1 == "a")
        let second = iterator.next()
        #expect(second?.0 == 2 && second?.1 == nil)
        #expect(iterator.next()?.0 == 3)
        #expect(iterator.next() == nil)
    }

    @Test func theFibonacciNumbers() {
        #expect(first(10, of: FibonacciIterator()) == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34])
    }

    @Test func theFibonacciNumbersStopAtIntMaxRatherThanOverflow() {
        let numbers = first(200, of: FibonacciIterator()).compactMap { $0 }
        #expect(numbers.count == 200)
        #expect(numbers[92] == 7_540_113_804_746_346_429)
        #expect(numbers.suffix(100).allSatisfy { $0 == .max })
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func aRandomFailIteratorOfProbabilityZeroNeverFailsAndOfOneAlwaysDoes() {
        let never = RandomFailIterator(AnyIterator { true }, probability: 0)
        let always = RandomFailIterator(AnyIterator { true }, probability: 1)
        #expect(first(1_000, of: never).allSatisfy { $0 == true })
        #expect(first(1_000, of: always).allSatisfy { $0 == nil })
    }

    @Test func aRandomFailIteratorFailsAboutAsOftenAsItsProbability() {
        let iterator = RandomFailIterator(AnyIterator { true }, probability: 0.2)
        let failures = first(100_000, of: iterator).filter { $0 == nil }.count
        #expect(abs(Double(failures) / 100_000 - iterator.probability) <= 0.1)
    }
}

/// The original's WaitStrategyTestCase: the intervals a strategy's iterator gives, in turn.
@Suite("WaitStrategy iterators")
struct WaitStrategyIteratorTests {

    @Test func immediate() {
        #expect(first(3, of: WaitStrategy.immediate.iterator) == [0, 0, 0])
        #expect(first(3, of: IntervalIterator.immediate) == [0, 0, 0])
    }

    @Test func constant() {
        #expect(first(5, of: WaitStrategy.constant(1).iterator) == [1, 1, 1, 1, 1])
    }

    @Test func incrementing() {
        let iterator = WaitStrategy.incrementing(initial: 0, increment: 3).iterator
        #expect(first(6, of: iterator) == [0, 3, 6, 9, 12, 15])
    }

    @Test func fibonacci() {
        let iterator = WaitStrategy.fibonacci(period: 1, maximum: 30).iterator
        #expect(first(10, of: iterator) == [0, 1, 1, 2, 3, 5, 8, 13, 21, 30])
    }

    @Test func exponentialAsTheOriginalSpellsIt() {
        let iterator = WaitStrategy.exponential(power: 2, period: 1, maximum: 20).iterator
        #expect(first(6, of: iterator) == [1, 2, 4, 8, 16, 20])
    }

    @Test func exponentialAsOursSpellsIt() {
        let strategy = WaitStrategy.exponential(initial: 0.5, multiplier: 3, maximum: 100)
        #expect(first(4, of: strategy.iterator) == [0.5, 1.5, 4.5, 13.5])
        #expect(WaitStrategy.exponential(power: 3, period: 0.5, maximum: 100) == strategy)
    }

    @Test func random() {
        let iterator = WaitStrategy.random(minimum: 1, maximum: 2).iterator
        let intervals = first(100_000, of: iterator).compactMap { $0 }
        #expect(intervals.count == 100_000)
        #expect(intervals.allSatisfy { $0 >= 1 && $0 <= 2 })
        #expect(Set(intervals).count > 1_000)
    }

    @Test func theIteratorGivesTheWaitAfterEachProcedureInTurn() {
        let strategy = WaitStrategy.incrementing(initial: 1, increment: 0.5)
        let expected = (1...4).map { strategy.delay(afterAttempt: $0) }
        #expect(first(4, of: strategy.iterator) == expected)
    }

    @Test func noWaitIsNegative() {
        #expect(
            first(3, of: WaitStrategy.incrementing(initial: 1, increment: -1).iterator) == [
                1, 0, 0,
            ])
        #expect(first(2, of: WaitStrategy.constant(-5).iterator) == [0, 0])
        #expect(first(2, of: WaitStrategy.fibonacci(period: -1, maximum: 10).iterator) == [0, 0])
    }

    @Test func aLongFibonacciWaitStaysAtItsMaximum() {
        let strategy = WaitStrategy.fibonacci(period: 1, maximum: 60)
        #expect(strategy.delay(afterAttempt: 1_000_000) == 60)
    }

    @Test func theIntervalIteratorsAreTheStrategies() {
        #expect(first(3, of: IntervalIterator.constant(2)) == [2, 2, 2])
        #expect(first(3, of: IntervalIterator.incrementing(from: 1, by: 2)) == [1, 3, 5])
        #expect(
            first(5, of: IntervalIterator.fibonacci(withPeriod: 2, andMaximum: 5)) == [
                0, 2, 2, 4, 5,
            ])
        #expect(
            first(4, of: IntervalIterator.exponential(power: 3, withPeriod: 1, andMaximum: 10))
                == [1, 3, 9, 10])
        let random = first(1_000, of: IntervalIterator.random(withMinimum: 3, andMaximum: 4))
        #expect(random.allSatisfy { ($0 ?? 0) >= 3 && ($0 ?? 0) <= 4 })
    }
}

/// The original's DelayIteratorTests: the same waits, as delays.
@Suite("Delay.Iterator")
struct DelayIteratorTests {

    @Test func immediate() {
        #expect(first(3, of: Delay.Iterator.immediate) == [.by(0), .by(0), .by(0)])
    }

    @Test func constant() {
        #expect(first(5, of: Delay.Iterator.constant(1)) == Array(repeating: .by(1), count: 5))
    }

    @Test func incrementing() {
        #expect(
            first(6, of: Delay.Iterator.incrementing(from: 0, by: 3))
                == [.by(0), .by(3), .by(6), .by(9), .by(12), .by(15)])
    }

    @Test func fibonacci() {
        let delays = first(10, of: Delay.Iterator.fibonacci(withPeriod: 1, andMaximum: 30))
        #expect(delays == [0, 1, 1, 2, 3, 5, 8, 13, 21, 30].map { Delay.by($0) })
    }

    @Test func exponential() {
        let delays = first(
            6, of: Delay.Iterator.exponential(power: 2, withPeriod: 1, andMaximum: 20))
        #expect(delays == [1, 2, 4, 8, 16, 20].map { Delay.by($0) })
    }

    @Test func random() {
        let delays = first(100_000, of: Delay.Iterator.random(withMinimum: 1, andMaximum: 2))
        #expect(delays.allSatisfy { $0 != nil && $0! >= .by(1) && $0! <= .by(2) })
    }

    @Test func ofAnyIntervals() {
        let delays = first(3, of: Delay.iterator(AnyIterator([0.5, 2].makeIterator())))
        #expect(delays == [.by(0.5), .by(2), nil])
    }
}

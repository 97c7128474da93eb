import Testing

@testable import Procflow

@Suite("A dense table")
struct DenseTableTests {
    @Test func itHoldsWhatADictionaryHoldsThroughInsertionsChangesAndRemovals() {
        var generator = SystemRandomNumberGenerator()
        var table = DenseTable<String, Int>()
        var model: [String: Int] = [:]
        for round in 0..<5000 {
            let key = "k\(Int.random(in: 0..<300, using: &generator))"
            if Int.random(in: 0..<3, using: &generator) == 0 {
                table[key] = nil
                model[key] = nil
            } else {
                table[key] = round
                model[key] = round
            }
            if round % 97 == 0 {
                #expect(table.count == model.count)
                #expect(Dictionary(uniqueKeysWithValues: table.map { ($0.key, $0.value) }) == model)
                #expect(model.allSatisfy { table[$0.key] == $0.value })
                // Every key's place holds its value; keys and values stand side by side.
                for (place, key) in table.keys.enumerated() {
                    #expect(table.place(of: key) == place)
                    #expect(table[place: place] == model[key])
                }
            }
        }
        #expect(table["absent"] == nil)
        #expect(table.place(of: "absent") == nil)
    }

    /// A key whose hashes collide: values sit in long runs of buckets, wrapping past the end
    /// of the table, and a removal must close its gap for the keys after it to be found.
    private struct CollidingKey: Hashable {
        let number: Int

        func hash(into hasher: inout Hasher) {
            hasher.combine(number % 7)
        }
    }

    @Test func keysThatCollideAreFoundThroughRemovals() {
        var generator = SystemRandomNumberGenerator()
        var table = DenseTable<CollidingKey, Int>()
        var model: [CollidingKey: Int] = [:]
        for round in 0..<4000 {
            let key = CollidingKey(number: Int.random(in: 0..<120, using: &generator))
            if Int.random(in: 0..<2, using: &generator) == 0 {
                table[key] = nil
                model[key] = nil
            } else {
                table[key] = round
                model[key] = round
            }
            if round % 50 == 0 {
                #expect(table.count == model.count)
                for number in 0..<120 {
                    let key = CollidingKey(number: number)
                    #expect(table[key] == model[key])
                    #expect(
                        table.place(of: key).map { table.keys[$0] } == model[key].map { _ in key })
                }
            }
        }
    }

    @Test func aValueChangedInItsPlaceIsChangedForItsKey() {
        var table: DenseTable<String, [Int]> = ["a": [1], "b": [2]]
        let place = table.place(of: "b")!
        table[place: place].append(3)
        #expect(table["b"] == [2, 3])
        #expect(table["a"] == [1])
    }

    @Test func tablesOfTheSameValuesAreEqualInAnyOrder() {
        var one: DenseTable<String, Int> = ["a": 1, "b": 2, "c": 3]
        let other: DenseTable<String, Int> = ["c": 3, "a": 1, "b": 2]
        #expect(one == other)
        one["b"] = nil
        #expect(one != other)
        #expect(one == ["a": 1, "c": 3])
        // The last value took the removed one's place.
        #expect(one.keys == ["a", "c"])
        #expect(one.filter { $0.value > 1 } == ["c": 3])
    }

    @Test func mappedValuesKeepTheirKeysPlacesAndOrderAndChangeApart() {
        var table = DenseTable<String, Int>()
        for number in 0..<200 { table["k\(number)"] = number }
        table["k7"] = nil
        var doubled = table.mapValues { 2 * $0 }
        #expect(doubled.keys == table.keys)
        for (place, key) in table.keys.enumerated() {
            #expect(doubled.place(of: key) == place)
            #expect(doubled[key] == table[key].map { 2 * $0 })
        }
        #expect(doubled["k7"] == nil)
        // The tables share their keys and hash table until one of them changes.
        doubled["k1"] = nil
        doubled["new"] = 1
        doubled[place: doubled.place(of: "k2")!] = -1
        #expect(table.count == 199)
        #expect(table["k1"] == 1)
        #expect(table["new"] == nil)
        #expect(table["k2"] == 2)
        #expect(doubled.count == 199)
        #expect(doubled["k2"] == -1)
        #expect(doubled["k3"] == 6)
    }

    @Test func roomMadeIsRoomKept() {
        var table = DenseTable<Int, Int>()
        table.reserveCapacity(1000)
        let room = table.capacity
        #expect(room >= 1000)
        for key in 0..<1000 { table[key] = key }
        #expect(table.capacity == room)
    }
}

/// Values by key, kept in one dense array, with a hash table of their places: what a run keeps
/// of each of 100,000 steps or files, where a dictionary would not do.
///
/// A dictionary keeps a slot for a value in every bucket of its hash table, and keeps under
/// three quarters of them full, doubling its buckets as it grows: 100,000 values of 128 bytes
/// take 262,144 slots, 34 MB, most of them empty. Here the empty buckets hold a place of 4
/// bytes: the same values take 13 MB, and 5 MB of table.
///
/// Its order is that of insertion, but for a removal, which moves the last value into the
/// place of the one removed.
struct DenseTable<Key: Hashable, Value> {
    /// The place of each key's value in `values`.
    private var places: [Key: Int32] = [:]
    /// Each value's key, in the values' order.
    private(set) var keys: [Key] = []
    private(set) var values: [Value] = []

    init() {}

    /// Makes room for `capacity` values in all.
    mutating func reserveCapacity(_ capacity: Int) {
        places.reserveCapacity(capacity)
        keys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    /// How many values it holds without growing.
    var capacity: Int { Swift.min(places.capacity, values.capacity) }

    var count: Int { values.count }

    var isEmpty: Bool { values.isEmpty }

    /// Where `key`'s value is in ``values``, if it has one: it stays there until a value is
    /// removed.
    func place(of key: Key) -> Int? {
        places[key].map(Int.init)
    }

    /// The value at `place`, which ``place(of:)`` gave.
    subscript(place place: Int) -> Value {
        get { values[place] }
        _modify { yield &values[place] }
    }

    /// The value of `key`; setting `nil` removes it.
    subscript(key: Key) -> Value? {
        get { places[key].map { values[Int($0)] } }
        set {
            if let place = places[key].map(Int.init) {
                if let newValue {
                    values[place] = newValue
                } else {
                    remove(at: place, key: key)
                }
            } else if let newValue {
                precondition(values.count < Int(Int32.max), "a table of more than 2^31 values")
                places[key] = Int32(values.count)
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Removes the value at `place`, whose key is `key`: the last value takes its place.
    private mutating func remove(at place: Int, key: Key) {
        places[key] = nil
        let last = values.count - 1
        if place != last {
            keys.swapAt(place, last)
            values.swapAt(place, last)
            places[keys[place]] = Int32(place)
        }
        keys.removeLast()
        values.removeLast()
    }

    /// The table with only the values `isIncluded` accepts.
    func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> DenseTable {
        var kept = DenseTable()
        for element in self where try isIncluded(element) {
            kept[element.key] = element.value
        }
        return kept
    }
}

extension DenseTable: Sequence {
    typealias Element = (key: Key, value: Value)

    struct Iterator: IteratorProtocol {
        fileprivate let table: DenseTable
        fileprivate var place = 0

        mutating func next() -> Element? {
            guard place < table.values.count else { return nil }
            defer { place += 1 }
            return (table.keys[place], table.values[place])
        }
    }

    func makeIterator() -> Iterator {
        Iterator(table: self)
    }

    var underestimatedCount: Int { count }
}

extension DenseTable: ExpressibleByDictionaryLiteral {
    init(dictionaryLiteral elements: (Key, Value)...) {
        reserveCapacity(elements.count)
        for (key, value) in elements { self[key] = value }
    }
}

extension DenseTable: Equatable where Value: Equatable {
    /// The same keys with the same values, in any order.
    static func == (left: DenseTable, right: DenseTable) -> Bool {
        left.count == right.count && left.allSatisfy { right[$0.key] == $0.value }
    }
}

extension DenseTable: Sendable where Key: Sendable, Value: Sendable {}

extension DenseTable: CustomStringConvertible {
    var description: String {
        "[" + map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
    }
}

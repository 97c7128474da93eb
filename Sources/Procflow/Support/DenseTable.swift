/// Values by key, kept in one dense array, with a hash table of their places: what a run keeps
/// of each of 100,000 steps or files, where a dictionary would not do.
///
/// A dictionary keeps a slot for a key and its value in every bucket of its hash table, and
/// keeps under three quarters of them full, doubling its buckets as it grows: 100,000 values
/// of 128 bytes take 262,144 slots, 34 MB, most of them empty. Here a bucket holds only a
/// place of 4 bytes (open addressing, probing the next bucket on a collision, at most half of
/// them full): the same values take 13 MB, their keys 1.6 MB, and 1 MB of table.
///
/// Its order is that of insertion, but for a removal, which moves the last value into the
/// place of the one removed.
struct DenseTable<Key: Hashable, Value> {
    /// The hash table: each bucket holds the place in `values` of a value whose key hashes to
    /// it, or to a bucket before it when that was taken; -1 when empty. A power of two of
    /// buckets, or none.
    private var buckets: [Int32] = []
    /// Each value's key, in the values' order.
    private(set) var keys: [Key] = []
    private(set) var values: [Value] = []

    init() {}

    /// Makes room for `capacity` values in all.
    mutating func reserveCapacity(_ capacity: Int) {
        if 2 * capacity > buckets.count { rehash(into: Self.bucketCount(for: capacity)) }
        keys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    /// How many values it holds without growing.
    var capacity: Int { Swift.min(buckets.count / 2, values.capacity) }

    var count: Int { values.count }

    var isEmpty: Bool { values.isEmpty }

    /// Where `key`'s value is in ``values``, if it has one: it stays there until a value is
    /// removed.
    func place(of key: Key) -> Int? {
        guard !buckets.isEmpty else { return nil }
        let place = buckets[bucket(of: key)]
        return place < 0 ? nil : Int(place)
    }

    /// The value at `place`, which ``place(of:)`` gave.
    subscript(place place: Int) -> Value {
        get { values[place] }
        _modify { yield &values[place] }
    }

    /// The value of `key`; setting `nil` removes it.
    subscript(key: Key) -> Value? {
        get { place(of: key).map { values[$0] } }
        set {
            if buckets.isEmpty {
                guard newValue != nil else { return }
                rehash(into: Self.bucketCount(for: 1))
            }
            var bucket = bucket(of: key)
            let place = buckets[bucket]
            if place >= 0 {
                if let newValue {
                    values[Int(place)] = newValue
                } else {
                    remove(at: Int(place), from: bucket)
                }
            } else if let newValue {
                precondition(values.count < Int(Int32.max), "a table of more than 2^31 values")
                if 2 * (values.count + 1) > buckets.count {
                    rehash(into: 2 * buckets.count)
                    bucket = self.bucket(of: key)
                }
                buckets[bucket] = Int32(values.count)
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// The bucket holding `key`'s place, or the empty one where it would go; the table has
    /// buckets.
    private func bucket(of key: Key) -> Int {
        let mask = buckets.count - 1
        var bucket = key.hashValue & mask
        while true {
            let place = buckets[bucket]
            if place < 0 || keys[Int(place)] == key { return bucket }
            bucket = (bucket + 1) & mask
        }
    }

    /// The bucket holding `place`.
    private func bucket(holding place: Int) -> Int {
        let mask = buckets.count - 1
        var bucket = keys[place].hashValue & mask
        while buckets[bucket] != Int32(place) { bucket = (bucket + 1) & mask }
        return bucket
    }

    /// Buckets enough for `count` values: a power of two, at least twice as many.
    private static func bucketCount(for count: Int) -> Int {
        var buckets = 8
        while buckets < 2 * count { buckets *= 2 }
        return buckets
    }

    /// Makes the table `count` buckets and places every value again.
    private mutating func rehash(into count: Int) {
        buckets = Array(repeating: -1, count: count)
        let mask = count - 1
        for place in keys.indices {
            var bucket = keys[place].hashValue & mask
            while buckets[bucket] >= 0 { bucket = (bucket + 1) & mask }
            buckets[bucket] = Int32(place)
        }
    }

    /// Removes the value at `place`, whose bucket is `bucket`: the last value takes its place.
    private mutating func remove(at place: Int, from bucket: Int) {
        // The buckets after it, up to an empty one, move back where their keys may be found
        // from their own bucket without passing an empty one (no marks of removals are left).
        let mask = buckets.count - 1
        var hole = bucket
        var next = (hole + 1) & mask
        while buckets[next] >= 0 {
            let home = keys[Int(buckets[next])].hashValue & mask
            if (next - home) & mask >= (next - hole) & mask {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = -1
        let last = values.count - 1
        if place != last {
            buckets[self.bucket(holding: last)] = Int32(place)
            keys.swapAt(place, last)
            values.swapAt(place, last)
        }
        keys.removeLast()
        values.removeLast()
    }

    /// The same keys, each with `transform` of its value: the keys and the hash table are
    /// shared with this table, not copied.
    func mapValues<T>(_ transform: (Value) throws -> T) rethrows -> DenseTable<Key, T> {
        var mapped = DenseTable<Key, T>()
        mapped.buckets = buckets
        mapped.keys = keys
        mapped.values = try values.map(transform)
        return mapped
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

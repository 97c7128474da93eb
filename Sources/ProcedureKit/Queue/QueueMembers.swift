import Foundation

/// The operations a queue holds, from the moment they are added until they finish.
///
/// Each operation keeps the index of its entry, so that adding and removing one costs O(1) and
/// no hashing; a list in the order they were added is sorted only when asked for.
struct QueueMembers {
    private var entries: [(order: Int, operation: Operation)?] = []
    /// Indices of empty entries, reused before the list grows.
    private var free: [Int] = []
    private var added = 0

    /// How many operations it holds.
    private(set) var count = 0

    /// Adds `operations`; returns the index of each one's entry, in the same order.
    mutating func add(_ operations: [Operation]) -> [Int] {
        var indices: [Int] = []
        indices.reserveCapacity(operations.count)
        for operation in operations {
            added += 1
            let entry = (order: added, operation: operation)
            if let index = free.popLast() {
                entries[index] = entry
                indices.append(index)
            } else {
                entries.append(entry)
                indices.append(entries.count - 1)
            }
        }
        count += operations.count
        return indices
    }

    /// Removes the operation whose entry is at `index`.
    mutating func remove(at index: Int) {
        entries[index] = nil
        free.append(index)
        count -= 1
    }

    /// The operations, in the order they were added.
    var inOrder: [Operation] {
        entries.compactMap { $0 }.sorted { $0.order < $1.order }.map(\.operation)
    }
}

import Foundation

/// The operations a queue holds, from the moment they are added until they finish.
///
/// Each operation keeps the index of its entry, so that adding and removing one costs O(1),
/// without hashing; an entry left empty is reused, chained to the others through the entries
/// themselves, so nothing but the one list is allocated. A list in the order the operations
/// were added is sorted only when asked for.
struct QueueMembers {
    private enum Entry {
        case member(order: Int, operation: Operation)
        /// Empty; `next` is the next empty entry, or -1.
        case empty(next: Int)
    }

    private var entries: [Entry] = []
    private var firstEmpty = -1
    private var added = 0

    /// How many operations it holds.
    private(set) var count = 0

    /// Adds `operation`; returns the index of its entry.
    mutating func add(_ operation: Operation) -> Int {
        added += 1
        count += 1
        let entry = Entry.member(order: added, operation: operation)
        guard firstEmpty >= 0 else {
            entries.append(entry)
            return entries.count - 1
        }
        let index = firstEmpty
        if case .empty(let next) = entries[index] { firstEmpty = next }
        entries[index] = entry
        return index
    }

    /// Removes the operation whose entry is at `index`, and returns it: the caller releases it
    /// once it has let go of its lock.
    mutating func remove(at index: Int) -> Operation? {
        let removed = entries[index]
        entries[index] = .empty(next: firstEmpty)
        firstEmpty = index
        count -= 1
        guard case .member(_, let operation) = removed else { return nil }
        return operation
    }

    /// The operations, in the order they were added.
    var inOrder: [Operation] {
        var members: [(order: Int, operation: Operation)] = []
        members.reserveCapacity(count)
        for case .member(let order, let operation) in entries {
            members.append((order, operation))
        }
        return members.sorted { $0.order < $1.order }.map(\.operation)
    }
}

import Foundation

/// The operations a queue holds, from the moment they are added until they finish.
///
/// Each operation keeps the index of its entry, so that adding and removing one costs O(1),
/// without hashing; an entry left empty is reused, chained to the others through the entries
/// themselves, so nothing but the one list is allocated, and the first entry is kept inline, so
/// a queue that holds one operation at a time (a group's of one child) allocates nothing. A list
/// in the order the operations were added is sorted only when asked for.
///
/// An entry is plain data (the operation retained by hand while it is a member), so the list is
/// copied, grown and freed without visiting its entries. No member is left when the queue goes:
/// each holds the queue until it finishes.
struct QueueMembers {
    private struct Entry {
        /// The order it was added in; for an empty entry, the next empty entry, or -1.
        var order: Int
        /// The operation, retained while it is a member; `nil` for an empty entry.
        var operation: Unmanaged<Operation>?
    }

    /// Entry 0; entry `i` above it is `entries[i - 1]`.
    private var inline = Entry(order: -1, operation: nil)
    private var entries: [Entry] = []
    private var firstEmpty = 0
    private var added = 0

    /// How many operations it holds.
    private(set) var count = 0

    /// Adds `operation`, retaining it; returns the index of its entry.
    mutating func add(_ operation: Operation) -> Int {
        added += 1
        count += 1
        let entry = Entry(order: added, operation: .passRetained(operation))
        guard firstEmpty >= 0 else {
            entries.append(entry)
            return entries.count
        }
        let index = firstEmpty
        firstEmpty = self[index].order
        self[index] = entry
        return index
    }

    private subscript(index: Int) -> Entry {
        get { index == 0 ? inline : entries[index - 1] }
        set {
            if index == 0 { inline = newValue } else { entries[index - 1] = newValue }
        }
    }

    /// Removes the operation whose entry is at `index`, and returns it: the caller releases it
    /// once it has let go of its lock.
    mutating func remove(at index: Int) -> Operation? {
        guard let operation = self[index].operation else { return nil }
        self[index] = Entry(order: firstEmpty, operation: nil)
        firstEmpty = index
        count -= 1
        return operation.takeRetainedValue()
    }

    /// The operations, in the order they were added.
    var inOrder: [Operation] {
        var members: [(order: Int, operation: Operation)] = []
        members.reserveCapacity(count)
        for entry in CollectionOfOne(inline) + entries {
            if let operation = entry.operation {
                members.append((entry.order, operation.takeUnretainedValue()))
            }
        }
        return members.sorted { $0.order < $1.order }.map(\.operation)
    }
}

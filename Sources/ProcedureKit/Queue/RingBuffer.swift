/// A first-in, first-out buffer with amortised O(1) append, and insertion and removal at the
/// front.
package struct RingBuffer<Element> {
    private var storage: [Element?] = []
    private var head = 0
    package private(set) var count = 0

    package var isEmpty: Bool { count == 0 }

    package init() {}

    package mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        storage[(head + count) % storage.count] = element
        count += 1
    }

    /// Puts `element` at the front, to be popped next.
    package mutating func prepend(_ element: Element) {
        if count == storage.count { grow() }
        head = (head - 1 + storage.count) % storage.count
        storage[head] = element
        count += 1
    }

    /// The element `popFirst()` would take, if any.
    package var first: Element? {
        count == 0 ? nil : storage[head]
    }

    package mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        if count == 0 { head = 0 }
        return element
    }

    /// Doubles the storage, moving the elements to its start. Built in place: an array made
    /// full of `nil` and then written over cost more than the elements it moves.
    private mutating func grow() {
        let capacity = Swift.max(4, storage.count * 2)
        let grown = [Element?](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            for index in 0..<count {
                buffer.initializeElement(at: index, to: storage[(head + index) % storage.count])
            }
            for index in count..<capacity { buffer.initializeElement(at: index, to: nil) }
            initialized = capacity
        }
        storage = grown
        head = 0
    }
}

extension RingBuffer: Sequence {
    package struct Iterator: IteratorProtocol {
        var buffer: RingBuffer

        package mutating func next() -> Element? {
            buffer.popFirst()
        }
    }

    package func makeIterator() -> Iterator {
        Iterator(buffer: self)
    }
}

/// A first-in, first-out buffer with amortised O(1) append and removal at the front.
struct RingBuffer<Element> {
    private var storage: [Element?] = []
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        storage[(head + count) % storage.count] = element
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        if count == 0 { head = 0 }
        return element
    }

    /// Removes every element for which `shouldRemove` is true, keeping the order of the rest.
    mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        var kept = RingBuffer()
        while let element = popFirst() {
            if !shouldRemove(element) { kept.append(element) }
        }
        self = kept
    }

    private mutating func grow() {
        var grown = [Element?](repeating: nil, count: Swift.max(4, storage.count * 2))
        for index in 0..<count {
            grown[index] = storage[(head + index) % storage.count]
        }
        storage = grown
        head = 0
    }
}

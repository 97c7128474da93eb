/// The events waiting for a procedure's event loop, first in, first out, the first of them kept
/// inline.
///
/// Most procedures queue one event at a time (their finish, posted while their start is
/// handled), so most never allocate a buffer: the rest go to a ``RingBuffer`` behind the inline
/// one, which is always the oldest.
struct EventQueue<Element> {
    private var inline: Element?
    private var rest = RingBuffer<Element>()

    mutating func append(_ element: Element) {
        if inline == nil, rest.isEmpty {
            inline = element
        } else {
            rest.append(element)
        }
    }

    mutating func popFirst() -> Element? {
        if let first = inline {
            inline = nil
            return first
        }
        return rest.popFirst()
    }
}

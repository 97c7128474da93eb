/// Values in order, one of them kept inline: most steps name one source, generate one file and
/// give one offset for it, and an array of one takes an allocation of its own (48 to 64 bytes
/// with malloc's, one a list).
struct OneOrMore<Element>: RandomAccessCollection, ExpressibleByArrayLiteral {
    fileprivate enum Storage {
        case one(Element)
        case many([Element])
    }

    private var storage: Storage

    init(_ values: [Element]) {
        storage = values.count == 1 ? .one(values[0]) : .many(values)
    }

    init(arrayLiteral values: Element...) {
        self.init(values)
    }

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .one: 1
        case .many(let values): values.count
        }
    }

    subscript(position: Int) -> Element {
        switch storage {
        case .one(let value):
            precondition(position == 0, "index out of range")
            return value
        case .many(let values): return values[position]
        }
    }

    /// The values as an array: the one it holds for a list of several, not a copy.
    var array: [Element] {
        switch storage {
        case .one(let value): [value]
        case .many(let values): values
        }
    }

    /// Adds `value` at the end.
    mutating func append(_ value: Element) {
        switch storage {
        case .one(let first): storage = .many([first, value])
        case .many(var values):
            // Emptied first, so that the array is not copied to grow.
            storage = .many([])
            values.append(value)
            storage = values.count == 1 ? .one(value) : .many(values)
        }
    }
}

extension OneOrMore: Equatable where Element: Equatable {
    static func == (left: OneOrMore, right: OneOrMore) -> Bool {
        left.elementsEqual(right)
    }
}

extension OneOrMore: Sendable where Element: Sendable {}

extension OneOrMore.Storage: Sendable where Element: Sendable {}

/// Absolute paths, one of them inline.
typealias PathList = OneOrMore<String>

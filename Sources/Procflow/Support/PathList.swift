/// Paths in order, one of them kept inline: most steps name one source and generate one file,
/// and an array of one takes an allocation of its own (64 bytes with malloc's, two a step).
struct PathList: RandomAccessCollection, ExpressibleByArrayLiteral, Equatable, Sendable {
    private enum Storage: Equatable, Sendable {
        case one(String)
        case many([String])
    }

    private var storage: Storage

    init(_ paths: [String]) {
        storage = paths.count == 1 ? .one(paths[0]) : .many(paths)
    }

    init(arrayLiteral paths: String...) {
        self.init(paths)
    }

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .one: 1
        case .many(let paths): paths.count
        }
    }

    subscript(position: Int) -> String {
        switch storage {
        case .one(let path):
            precondition(position == 0, "index out of range")
            return path
        case .many(let paths): return paths[position]
        }
    }

    /// Adds `path` at the end.
    mutating func append(_ path: String) {
        switch storage {
        case .one(let first): storage = .many([first, path])
        case .many(var paths):
            // Emptied first, so that the array is not copied to grow.
            storage = .many([])
            paths.append(path)
            storage = paths.count == 1 ? .one(path) : .many(paths)
        }
    }
}

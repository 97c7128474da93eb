import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An environment that the commands of a run share, rendered as exec takes it once, the first
/// time one is spawned: each command's own variables are laid over it without copying the
/// rest. (Rendered per command, a few dozen variables were an eighth of procflow's
/// instructions for each step of a chain.)
final class SharedEnvironment: Sendable {
    /// The variables, by name.
    let values: [String: String]
    private let rendered = Locked<Rendered?>(nil)

    init(_ values: [String: String]) {
        self.values = values
    }

    /// No variables.
    static let none = SharedEnvironment([:])

    /// The variables as `name=value` strings, and where each name's string is.
    private final class Rendered: @unchecked Sendable {
        // @unchecked Sendable: written once, before it is shared, and only read after.
        let strings: CStringArray
        /// Where each name's string is: one for each variable.
        let positions: [String: Int]

        init(_ values: [String: String]) {
            let entries = Array(values)
            strings = CStringArray(entries.lazy.map { ($0.key, Optional($0.value)) })
            var positions: [String: Int] = [:]
            positions.reserveCapacity(entries.count)
            for (position, entry) in entries.enumerated() { positions[entry.key] = position }
            self.positions = positions
        }

        deinit { strings.deallocate() }
    }

    private var shared: Rendered {
        rendered.withLock { rendered in
            if let rendered { return rendered }
            let made = Rendered(values)
            rendered = made
            return made
        }
    }

    /// Calls `body` with the environment, as exec takes it, of these variables with `own` laid
    /// over them (a name in both takes its value from `own`).
    func withStrings<Result>(
        over own: [String: String],
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Result
    ) -> Result {
        let shared = shared
        let ownStrings = CStringArray(own.lazy.map { ($0.key, Optional($0.value)) })
        let pointers = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(
            capacity: shared.positions.count + own.count + 1)
        defer {
            pointers.deallocate()
            ownStrings.deallocate()
        }
        var hidden: [Int] = []
        for name in own.keys {
            if let position = shared.positions[name] { hidden.append(position) }
        }
        var count = 0
        for position in 0..<shared.positions.count where !hidden.contains(position) {
            pointers[count] = shared.strings.pointers[position]
            count += 1
        }
        for position in 0..<own.count {
            pointers[count] = ownStrings.pointers[position]
            count += 1
        }
        pointers[count] = nil
        return withExtendedLifetime(shared) { body(pointers) }
    }
}

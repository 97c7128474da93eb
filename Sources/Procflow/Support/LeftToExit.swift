/// Values a command that is about to end leaves for the system to reclaim when the process
/// exits, as compiler drivers do with their syntax trees: tearing down a 100,000-step workflow
/// and its file's syntax tree one object at a time is 8 % of `validate`'s work, and gives
/// nothing back to a process that is ending. Only for memory the process has no further use
/// for, in a process that ends soon after; never in a loop (`--watch` reloads).
enum LeftToExit {
    private final class Kept<Value> {
        let value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    /// Keeps `value` alive until the process exits.
    static func keep<Value>(_ value: Value) {
        _ = Unmanaged.passRetained(Kept(value))
    }
}

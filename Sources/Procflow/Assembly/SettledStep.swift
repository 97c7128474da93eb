/// An incremental step found up to date before the run started, its files already put back:
/// the output its last run gave, and what was put back.
struct SettledStep: Sendable {
    /// The output its last run gave.
    let value: JSONValue
    /// What was put back from the store, if anything.
    let note: String?
}

/// Where the records of steps' runs and the files they made are kept, by digest: the state
/// directory (``LocalStore``), or a store shared by many machines layered on it.
///
/// Records are found by the digest of their inputs (``StepRecord/key``): a step whose inputs
/// match an earlier run's takes that run's outcome and puts its files back.
protocol ResultStore: Sendable {
    /// The runs kept for inputs `key`, newest first.
    func records(for key: Digest) -> [StepRecord]
    /// Keeps `record` among the runs with its inputs.
    ///
    /// - Throws: a ``CacheProblem`` if it cannot be kept.
    func keep(_ record: StepRecord) throws(CacheProblem)
    /// Whether the content `digest` can be put back.
    func contains(_ digest: Digest) -> Bool
    /// Reads the file at `path` and keeps its content.
    ///
    /// - Throws: a ``CacheProblem`` if it cannot be read or kept.
    func add(fileAt path: String) throws(CacheProblem) -> ContentStore.Stored
    /// Writes the content `digest` to `path` (whole, renamed into place) with `permissions`.
    ///
    /// - Throws: a ``CacheProblem`` if the content is missing or damaged, or `path` cannot be
    ///   written.
    func restore(_ digest: Digest, to path: String, permissions: UInt32) throws(CacheProblem)
    /// Where the content `digest` is kept, for people.
    func location(of digest: Digest) -> String
}

/// What the cache says of a step about to run.
enum CacheDecision: Sendable {
    /// Nothing changed: the record's outcome stands. `isNew` when it is not the step's last
    /// record as it is stored (an earlier run's, or one with files' statuses brought up to
    /// date), and must be stored.
    case upToDate(StepRecord, isNew: Bool)
    /// The record's outcome stands once these generated files are put back from the store.
    case restore(StepRecord, [StepRecord.Output])
    /// Another machine's outcome (the remote cache's) stands once these generated files are
    /// fetched and put back.
    case fetched(StepRecord, [StepRecord.Output])
    /// The step must run, for `reason`; `fingerprint` is what it runs with, to record.
    case run(reason: String, fingerprint: StepRecord)

    /// The record whose outcome stands, unless the step must run.
    var record: StepRecord? {
        switch self {
        case .upToDate(let record, _), .restore(let record, _), .fetched(let record, _):
            return record
        case .run: return nil
        }
    }
}

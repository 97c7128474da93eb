/// Candidate names prepared once for many "did you mean …?" questions, as the validator asks
/// one for each unknown reference in a file.
final class SuggestionIndex {
    /// How many cells of edit-distance tables all the questions to one index may fill: past
    /// it, there are no more hints (a file with that many typos is not a typo).
    static let workBudget = 20_000_000

    private let names: [String]
    /// Each name lowercased, as Unicode scalars: made at the first question, since most files
    /// have no typo to ask about.
    private lazy var folded: [[Unicode.Scalar]] = names.map {
        Array($0.lowercased().unicodeScalars)
    }
    private var workLeft = workBudget

    init<S: Sequence<String>>(_ candidates: S) {
        names = Array(candidates.prefix(Suggestion.mostCandidates))
    }

    /// The candidate nearest `name`, if one is near enough to be a likely typo.
    func closest(to name: String) -> String? {
        let typed = Array(name.lowercased().unicodeScalars)
        guard typed.count <= Suggestion.longestName else { return nil }
        let limit = max(1, typed.count / 3)
        var best: (index: Int, distance: Int)?
        for (index, known) in folded.enumerated() where names[index] != name {
            guard abs(known.count - typed.count) <= limit else { continue }
            // A one- or two-letter name swapped for another says nothing ("b" is not a typo
            // of "a"); a missing or extra letter still does ("rn" for "run").
            if typed.count <= 2, known.count == typed.count { continue }
            workLeft -= typed.count * (2 * limit + 1)
            guard workLeft > 0 else { return nil }
            let bound = min(limit, (best?.distance ?? .max) - 1)
            guard let distance = Suggestion.editDistance(typed, known, limit: bound) else {
                continue
            }
            best = (index, distance)
        }
        return best.map { names[$0.index] }
    }

    /// " (did you mean "x"?)", or nothing.
    func hint(for name: String) -> String {
        closest(to: name).map { " (did you mean \"\($0)\"?)" } ?? ""
    }
}

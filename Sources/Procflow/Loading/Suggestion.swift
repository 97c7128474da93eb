/// Finds the candidate closest to a misspelled name, for "did you mean …?" hints.
///
/// Bounded for hostile files: names longer than ``longestName`` get no hint, at most
/// ``mostCandidates`` candidates are compared, each comparison stops as soon as the distance
/// is too large to matter, in memory that grows with the names' length only, and a
/// ``SuggestionIndex`` answering many questions stops answering after a fixed amount of work.
enum Suggestion {
    /// Names longer than this (in Unicode scalars) get no hint: nobody mistypes a long one.
    static let longestName = 64
    /// How many candidates one hint compares, at most.
    static let mostCandidates = 10_000

    /// The candidate nearest `name`, if one is near enough to be a likely typo.
    static func closest<S: Sequence<String>>(to name: String, in candidates: S) -> String? {
        SuggestionIndex(candidates).closest(to: name)
    }

    /// " (did you mean "x"?)", or nothing.
    static func hint<S: Sequence<String>>(for name: String, in candidates: S) -> String {
        closest(to: name, in: candidates).map { " (did you mean \"\($0)\"?)" } ?? ""
    }

    /// The edit distance between two strings, by characters, counting a swap of two
    /// neighbours as one edit (optimal string alignment): "hots" is one edit from "host".
    static func editDistance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a.unicodeScalars), Array(b.unicodeScalars))
        return editDistance(a, b, limit: max(a.count, b.count))!
    }

    /// The distance between `a` and `b` if it is at most `limit`, else `nil`; only the cells
    /// within `limit` of the diagonal are computed, three rows at a time.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int? {
        guard limit >= 0, abs(a.count - b.count) <= limit else { return nil }
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        let outside = limit + 1
        var before = [Int](repeating: outside, count: b.count + 1)
        var previous = (0...b.count).map { $0 <= limit ? $0 : outside }
        var current = [Int](repeating: outside, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i <= limit ? i : outside
            let low = max(1, i - limit)
            let high = min(b.count, i + limit)
            if low > 1 { current[low - 1] = outside }
            var smallest = current[0]
            if low <= high {
                for j in low...high {
                    let cost = a[i - 1] == b[j - 1] ? 0 : 1
                    var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                    if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                        value = min(value, before[j - 2] + 1)
                    }
                    current[j] = min(value, outside)
                    smallest = min(smallest, current[j])
                }
            }
            if high < b.count { current[high + 1] = outside }
            if smallest > limit { return nil }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }
}

/// Finds the candidate closest to a misspelled name, for "did you mean …?" hints.
enum Suggestion {
    /// The candidate nearest `name`, if one is near enough to be a likely typo.
    static func closest<S: Sequence<String>>(to name: String, in candidates: S) -> String? {
        let limit = max(1, name.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != name {
            // A one- or two-letter name swapped for another says nothing ("b" is not a typo
            // of "a"); a missing or extra letter still does ("rn" for "run").
            if name.count <= 2, candidate.count == name.count { continue }
            let distance = editDistance(name.lowercased(), candidate.lowercased())
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// " (did you mean "x"?)", or nothing.
    static func hint<S: Sequence<String>>(for name: String, in candidates: S) -> String {
        closest(to: name, in: candidates).map { " (did you mean \"\($0)\"?)" } ?? ""
    }

    /// The edit distance between two strings, by characters, counting a swap of two
    /// neighbours as one edit (optimal string alignment): "hots" is one edit from "host".
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(
                    table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}

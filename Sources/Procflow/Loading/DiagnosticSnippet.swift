/// The source line a located diagnostic points into, with a run of `^` under the text at
/// fault, as swiftc, rustc and just show them:
///
/// ```
///    12 |     "dependsOn": ["compil"]
///       |                  ^^^^^^^^
/// ```
///
/// Control characters in the line are escaped (the carets stay under what they point at), and a
/// long line is cut around the column, `…` marking what was left out.
enum DiagnosticSnippet {
    /// How many columns of the line are shown at most.
    static let width = 100

    /// The two lines for line `number`, whose text is `line`, pointing at `column` (in
    /// Unicode scalars, from 1); with `colored`, the carets in bold red.
    ///
    /// `line` may be a part of the line: `cutBefore` and `cutAfter` say whether it goes on.
    static func render(
        line: ArraySlice<UInt8>, number: Int, column: Int, colored: Bool,
        cutBefore: Bool = false, cutAfter: Bool = false
    ) -> String {
        var scalars = Array(String(decoding: line, as: UTF8.self).unicodeScalars)
        if scalars.last == "\r" { scalars.removeLast() }
        let start = min(max(column - 1, 0), scalars.count)
        let length = tokenLength(scalars, at: start)
        // Each scalar as shown: control characters escaped.
        let shown = scalars.map { String(String.UnicodeScalarView([$0])).escapingControlCharacters }
        var text = ""
        var caretStart = 0
        var caretLength = 0
        var window = 0..<shown.count
        let total = shown.reduce(0) { $0 + $1.count }
        if total > width {
            // Cut around the column: a third of the width before it.
            var first = start
            var taken = 0
            while first > 0, taken + shown[first - 1].count <= width / 3 {
                first -= 1
                taken += shown[first].count
            }
            var last = first
            var used = 0
            while last < shown.count, used + shown[last].count <= width {
                used += shown[last].count
                last += 1
            }
            window = first..<max(last, min(start + 1, shown.count))
        }
        if window.lowerBound > 0 || cutBefore { text += "…" }
        for index in window {
            if index == start { caretStart = text.count }
            if index >= start, index < start + length { caretLength += shown[index].count }
            text += shown[index]
        }
        if start >= window.upperBound { caretStart = text.count }
        if window.upperBound < shown.count || cutAfter { text += "…" }
        let gutter = String(number)
        let pad = String(repeating: " ", count: gutter.count)
        var carets = String(repeating: "^", count: max(caretLength, 1))
        if colored { carets = "\u{1B}[1;31m" + carets + "\u{1B}[0m" }
        return
            " \(gutter) | \(text)\n \(pad) | \(String(repeating: " ", count: caretStart))\(carets)"
    }

    /// How many scalars the text at `start` takes: a string to its closing quote, a word or
    /// number to its end, else one.
    private static func tokenLength(_ scalars: [Unicode.Scalar], at start: Int) -> Int {
        guard start < scalars.count else { return 1 }
        if scalars[start] == "\"" {
            var index = start + 1
            while index < scalars.count {
                if scalars[index] == "\\" {
                    index += 2
                    continue
                }
                if scalars[index] == "\"" { return index - start + 1 }
                index += 1
            }
            return scalars.count - start
        }
        func isWord(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || "_.+-".unicodeScalars.contains(scalar)
        }
        guard isWord(scalars[start]) else { return 1 }
        var index = start
        while index < scalars.count, isWord(scalars[index]) { index += 1 }
        return index - start
    }
}

/// A terminal screen, enough of one to replay what procflow writes to a terminal: text,
/// carriage return, line feed, cursor up (`ESC [ n A`), erase to the end of the screen
/// (`ESC [ J`) and of the line (`ESC [ K`, `ESC [ 2K`); colours and other sequences are
/// ignored. The screen has no height limit: nothing scrolls away.
struct ScreenEmulator {
    private(set) var rows: [[Character]] = [[]]
    private var row = 0
    private var column = 0

    /// The screen, each row without trailing spaces.
    var lines: [String] {
        var lines = rows.map { String($0).replacingOccurrences(of: "\0", with: " ") }
        lines = lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }
        while lines.last == "" { lines.removeLast() }
        return lines
    }

    mutating func feed(_ text: String) {
        var scalars = Array(text.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "\r": column = 0
            case "\n":
                row += 1
                if row == rows.count { rows.append([]) }
            case "\u{1B}":
                guard scalars.first == "[" else {
                    _ = scalars.popFirst()
                    continue
                }
                scalars.removeFirst()
                var parameters = ""
                while let next = scalars.popFirst() {
                    if (0x40...0x7E).contains(next.value) {
                        apply(final: next, parameters: parameters)
                        break
                    }
                    parameters.unicodeScalars.append(next)
                }
            default:
                put(Character(scalar))
            }
        }
    }

    private mutating func apply(final: Unicode.Scalar, parameters: String) {
        let count = Int(parameters) ?? 1
        switch final {
        case "A": row = max(0, row - count)
        case "J":
            rows[row] = Array(rows[row].prefix(column))
            rows.removeSubrange((row + 1)...)
        case "K":
            rows[row] = parameters == "2" ? [] : Array(rows[row].prefix(column))
        default: break
        }
    }

    private mutating func put(_ character: Character) {
        while rows[row].count < column { rows[row].append(" ") }
        if column < rows[row].count {
            rows[row][column] = character
        } else {
            rows[row].append(character)
        }
        column += 1
    }
}

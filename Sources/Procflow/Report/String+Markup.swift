extension String {
    /// The text as XML or HTML character data: `&`, `<`, `>`, `"` and `'` as entities, and
    /// the characters XML 1.0 does not allow (C0 controls other than tab, newline and carriage
    /// return, and U+FFFE, U+FFFF), DEL and C1 controls written as visible escapes (`\u{1B}`),
    /// so that a document parses whatever a command printed. Invalid UTF-8 does not reach
    /// here: output is decoded with U+FFFD in its place. Outside text (in an attribute, or an
    /// inline report where a line break matters) tab, newline and carriage return become
    /// character references too.
    func markupEscaped(inAttribute: Bool = false) -> String {
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\t", "\n", "\r":
                if inAttribute {
                    escaped += "&#\(scalar.value);"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            case _
            where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default:
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}

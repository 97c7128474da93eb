extension String {
    /// The text with control characters (C0, DEL and C1) written as escapes — `\n`, `\t`,
    /// `\r`, or `\u{1B}` — so that text from a file cannot move the cursor, clear the screen or
    /// recolour a terminal it is printed to.
    var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.isControl) else { return self }
        var escaped = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            case _ where scalar.isControl:
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}

extension Unicode.Scalar {
    /// C0 controls, DEL and C1 controls.
    fileprivate var isControl: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value)
    }
}

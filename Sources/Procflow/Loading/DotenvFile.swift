/// The variables of a dotenv file, read as `.env` files are commonly written:
///
/// ```
/// # a comment
/// export NAME=value          # `export` is optional; a comment may follow after a space
/// GREETING="hello\nworld"    # double quotes: \n \r \t \" \\ and \$ escapes; may span lines
/// RAW='no $escapes here'     # single quotes: taken literally; may span lines
/// EMPTY=
/// ```
///
/// Values are not expanded (`$OTHER` stays as written). A name given twice keeps the last value.
enum DotenvFile {
    /// What is wrong, and where (line and column from 1).
    struct Problem: Error, Equatable {
        let message: String
        let location: SourceLocation
    }

    /// The variables of `text`, in file order.
    static func parse(_ text: String) -> Result<[(name: String, value: String)], Problem> {
        var reader = Reader(Array(text.unicodeScalars))
        var variables: [(name: String, value: String)] = []
        do {
            while let entry = try reader.nextEntry() { variables.append(entry) }
        } catch {
            return .failure(error)
        }
        return .success(variables)
    }

    /// Reads entries one after another, keeping track of lines and columns.
    private struct Reader {
        private let scalars: [Unicode.Scalar]
        private var index = 0
        private var line = 1
        private var lineStart = 0

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        private var here: SourceLocation {
            SourceLocation(line: line, column: index - lineStart + 1)
        }

        private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
            index + ahead < scalars.count ? scalars[index + ahead] : nil
        }

        private mutating func advance() {
            if scalars[index] == "\n" {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }

        private mutating func skip(while matches: (Unicode.Scalar) -> Bool) {
            while let scalar = peek(), matches(scalar) { advance() }
        }

        private func problem(_ message: String) -> Problem {
            Problem(message: message, location: here)
        }

        /// The next `NAME=value`, or `nil` at the end of the text.
        mutating func nextEntry() throws(Problem) -> (name: String, value: String)? {
            while true {
                skip { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
                guard let first = peek() else { return nil }
                if first == "#" {
                    skip { $0 != "\n" }
                    continue
                }
                break
            }
            var name = readName()
            if name == "export", peek() == " " || peek() == "\t" {
                skip { $0 == " " || $0 == "\t" }
                name = readName()
            }
            guard !name.isEmpty else {
                throw problem(
                    "expected a variable name (letters, digits and '_', not first a digit)")
            }
            skip { $0 == " " || $0 == "\t" }
            guard peek() == "=" else { throw problem("expected '=' after \(name)") }
            advance()
            skip { $0 == " " || $0 == "\t" }
            let value: String
            switch peek() {
            case "'": value = try readQuoted(escapes: false)
            case "\"": value = try readQuoted(escapes: true)
            default: value = readUnquoted()
            }
            return (name, value)
        }

        private mutating func readName() -> String {
            var name = ""
            while let scalar = peek(),
                scalar == "_" || (scalar.isASCII && scalar.properties.isAlphabetic)
                    || (!name.isEmpty && ("0"..."9").contains(scalar))
            {
                name.unicodeScalars.append(scalar)
                advance()
            }
            return name
        }

        /// A value up to the end of the line, without a trailing ` # comment` or blanks.
        private mutating func readUnquoted() -> String {
            var value = ""
            while let scalar = peek(), scalar != "\n" {
                if scalar == "#",
                    value.isEmpty || value.unicodeScalars.last == " "
                        || value.unicodeScalars.last == "\t"
                {
                    skip { $0 != "\n" }
                    break
                }
                value.unicodeScalars.append(scalar)
                advance()
            }
            while let last = value.unicodeScalars.last, last == " " || last == "\t" || last == "\r"
            {
                value.unicodeScalars.removeLast()
            }
            return value
        }

        /// A value in quotes; after the closing quote only blanks and a comment may follow.
        private mutating func readQuoted(escapes: Bool) throws(Problem) -> String {
            let quote = peek()!
            let opening = here
            advance()
            var value = ""
            while true {
                guard let scalar = peek() else {
                    throw Problem(
                        message: "unterminated \(quote == "'" ? "single" : "double")-quoted value",
                        location: opening)
                }
                advance()
                if scalar == quote { break }
                if escapes, scalar == "\\", let next = peek() {
                    advance()
                    switch next {
                    case "n": value += "\n"
                    case "r": value += "\r"
                    case "t": value += "\t"
                    case "\"", "\\", "$": value.unicodeScalars.append(next)
                    default: value.unicodeScalars.append(contentsOf: ["\\", next])
                    }
                    continue
                }
                value.unicodeScalars.append(scalar)
            }
            skip { $0 == " " || $0 == "\t" || $0 == "\r" }
            if let next = peek(), next != "\n" {
                guard next == "#" else {
                    throw problem("unexpected text after the closing quote")
                }
                skip { $0 != "\n" }
            }
            return value
        }
    }
}

/// A dependency file in Makefile syntax, as `gcc -MD -MF x.d` and clang write it: rules
/// `targets: prerequisites`, continued over lines with `\`, spaces in names written `\ `, `#`
/// as `\#` and `$` as `$$`. Only the prerequisites matter here: the files the command read.
enum Depfile {
    /// Why a depfile could not be read.
    struct Problem: Error, Equatable {
        let message: String
    }

    /// The prerequisites of every rule in `text`, each once, in order.
    ///
    /// - Throws: a ``Problem`` for a line that is not a rule.
    static func prerequisites(in text: [UInt8]) throws(Problem) -> [String] {
        var parser = Parser(bytes: text)
        return try parser.parse()
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0
        var line = 1
        var found: [String] = []
        var seen: Set<String> = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func parse() throws(Problem) -> [String] {
            while position < bytes.count { try parseLine() }
            return found
        }

        /// One logical line: `targets: prerequisites`, or nothing, or a comment.
        mutating func parseLine() throws(Problem) {
            var inPrerequisites = false
            var sawTarget = false
            while let word = nextWord() {
                switch word {
                case .endOfLine:
                    if sawTarget, !inPrerequisites {
                        throw Problem(message: "line \(line - 1): a target without ':'")
                    }
                    return
                case .colon:
                    guard sawTarget, !inPrerequisites else {
                        throw Problem(message: "line \(line): ':' without a target before it")
                    }
                    inPrerequisites = true
                case .name(let name):
                    if inPrerequisites {
                        if seen.insert(name).inserted { found.append(name) }
                    } else {
                        sawTarget = true
                    }
                }
            }
            if sawTarget, !inPrerequisites {
                throw Problem(message: "line \(line): a target without ':'")
            }
        }

        enum Word {
            case name(String)
            case colon
            case endOfLine
        }

        /// The next name, `:` or end of line, skipping blanks, continuations and comments;
        /// `nil` at the end of the text.
        mutating func nextWord() -> Word? {
            skipBlanks()
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "\n"):
                position += 1
                line += 1
                return .endOfLine
            case UInt8(ascii: "#"):
                while position < bytes.count, bytes[position] != UInt8(ascii: "\n") {
                    position += 1
                }
                return nextWord()
            case UInt8(ascii: ":") where isSeparator(at: position + 1):
                position += 1
                return .colon
            default:
                return .name(readName())
            }
        }

        /// Skips spaces, tabs, carriage returns and `\` line continuations.
        mutating func skipBlanks() {
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    position += 1
                case UInt8(ascii: "\\") where continuationLength(at: position) > 0:
                    position += continuationLength(at: position)
                    line += 1
                default:
                    return
                }
            }
        }

        /// The length of a `\` newline (or `\` CR LF) at `index`, or 0.
        func continuationLength(at index: Int) -> Int {
            guard index + 1 < bytes.count else { return 0 }
            if bytes[index + 1] == UInt8(ascii: "\n") { return 2 }
            if bytes[index + 1] == UInt8(ascii: "\r"), index + 2 < bytes.count,
                bytes[index + 2] == UInt8(ascii: "\n")
            {
                return 3
            }
            return 0
        }

        /// Whether the byte at `index` ends a name: a blank, a line end, or the end.
        func isSeparator(at index: Int) -> Bool {
            guard index < bytes.count else { return true }
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                return true
            case UInt8(ascii: "\\"): return continuationLength(at: index) > 0
            default: return false
            }
        }

        mutating func readName() -> String {
            var name: [UInt8] = []
            while position < bytes.count, !isSeparator(at: position) {
                let byte = bytes[position]
                if byte == UInt8(ascii: ":"), isSeparator(at: position + 1) { break }
                if byte == UInt8(ascii: "\\"), position + 1 < bytes.count,
                    [UInt8(ascii: " "), UInt8(ascii: "#"), UInt8(ascii: "\\")].contains(
                        bytes[position + 1])
                {
                    name.append(bytes[position + 1])
                    position += 2
                    continue
                }
                if byte == UInt8(ascii: "$"), position + 1 < bytes.count,
                    bytes[position + 1] == UInt8(ascii: "$")
                {
                    name.append(byte)
                    position += 2
                    continue
                }
                name.append(byte)
                position += 1
            }
            return String(decoding: name, as: UTF8.self)
        }
    }
}
